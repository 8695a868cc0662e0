"""The check of integer arguments that every public function shares.

Integer parameters (``k``, ``max_iter``, ``seed``, ``distance``, ``sweeps``, ``cutoff``, ...)
accept every integral type, Python ``int`` and numpy (or CuPy) integers alike, and reject
booleans, floats and values out of range with an error that names the parameter and the value.
"""

import operator

import numpy as np

__all__ = ["check_integer"]


def check_integer(name, value, minimum=None, maximum=None):
    """``value`` as a Python int, checked to be an integer in ``minimum..maximum``.

    Parameters
    ----------
    name : str
        The parameter's name, for the error message.
    value : object
        Anything with ``__index__`` (int, numpy integers, 0-d integer arrays), not a bool.
    minimum, maximum : int, optional
        Inclusive bounds; None leaves that side open.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        for a bool, a float or any other non-integral value.
    ValueError
        for an integer outside ``minimum..maximum``.

    Examples
    --------
    >>> import numpy as np
    >>> check_integer("k", np.int64(3), minimum=1)
    3
    >>> check_integer("k", 2.0, minimum=1)
    Traceback (most recent call last):
    ...
    TypeError: k must be an integer, got 2.0 (float)
    >>> check_integer("seed", -1, 0, 2**63 - 1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be an integer from 0 to 2**63 - 1, got -1
    """
    # bool is an int subclass and numpy's bool_ had __index__ in old releases: True is a
    # mistake here, never the number 1
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got {value!r} (bool)")
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})") from None
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise ValueError(f"{name} must be {_describe(minimum, maximum)}, got {number}")
    return number


def _describe(minimum, maximum):
    if maximum is None:
        return {0: "a non-negative integer", 1: "a positive integer"}.get(minimum, f"an integer >= {minimum}")
    if minimum is None:
        return f"an integer <= {_bound(maximum)}"
    if maximum == minimum + 1:
        return f"{minimum} or {maximum}"
    return f"an integer from {_bound(minimum)} to {_bound(maximum)}"


def _bound(value):
    """``2**k - 1`` for the large limits of integer types, else the number itself."""
    if value > 2**16 and (value + 1) & value == 0:
        return f"2**{(value + 1).bit_length() - 1} - 1"
    return str(value)
