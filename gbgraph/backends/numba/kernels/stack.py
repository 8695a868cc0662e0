"""An operator's ``local()`` arrays on the stack: the numba backend's compilation of
:func:`gbgraph.backends.operators.local`.

The protocol's ``local(n, dtype)`` means ``np.zeros(n, dtype)``, and that is how numba
compiles it there: a heap allocation with its reference count for every row that asks for
one. A row operator that keeps a few slots a row (``aggregation.BETTER_GROUP``: 24 words)
pays an allocation for each row it examines: on one core, phase 3 took 7.0 ms on
delaunay_n17 and 21.3 ms on coAuthorsDBLP with the heap's arrays, 6.5 and 18.5 ms with these.
Here ``n`` is a literal (an int or one of the operator's
constants, which numba reads as literals), so the array is a fixed slot of the kernel's
frame, reserved once where the function starts and cleared at each call, as the protocol
asks. Its array has no owner (as numba's ``carray`` of a pointer), so it must not leave the
function that made it: an operator returns scalars, and restricted Python stores no array.

The same rule lets a kernel hand an operator its arrays without their owners
(:func:`borrowed`). numba inlines an operator into the kernel's loop, its parameters
becoming variables of the loop: each array argument is counted up when the operator
starts and down where it returns, two atomic operations and two calls a row that spill
the loop's registers, which numba's pruning of reference counts removes only where the
operator's branches are simple. ``aggregation.BETTER_GROUP`` (returns in five places, a
loop before them) paid them on every row, 40% over the same loop written into the kernel by
hand; with borrowed arrays, on one core, 5.5 -> 4.3 ms on delaunay_n17 and 16.7 -> 13.1 ms
on coAuthorsDBLP, and a HEC hierarchy's visits (``heavy.VISIT``) 0.49 -> 0.25 and 1.30 ->
0.69 ms. MIS-2's decision, whose counts numba pruned, is unchanged.
"""

import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array, populate_array

__all__ = ["local", "borrowed"]


def local(n, dtype):
    """``np.zeros(n, dtype)``, compiled as a cleared array in the calling function's frame
    (``n`` a literal).

    Examples
    --------
    >>> local(3, np.int64)
    array([0, 0, 0])
    """
    return np.zeros(n, dtype)


@intrinsic
def _zeros_in_frame(typingctx, n, dtype):
    """A cleared C array of ``n.literal_value`` items of ``dtype`` in the frame's entry
    block: one slot a function however often the call runs."""
    if not isinstance(n, types.IntegerLiteral) or n.literal_value < 0 or not isinstance(dtype, types.NumberClass):
        return None
    item, size = dtype.instance_type, n.literal_value
    array_type = types.Array(item, 1, "C")

    def codegen(context, builder, signature, args):
        data_type = context.get_data_type(item)
        itemsize = context.get_abi_sizeof(data_type)
        intp = context.get_value_type(types.intp)
        data = cgutils.alloca_once(builder, data_type, size=max(size, 1))
        cgutils.memset(builder, data, intp(size * itemsize), 0)
        array = make_array(array_type)(context, builder)
        populate_array(array, data=data, shape=[intp(size)], strides=[intp(itemsize)], itemsize=intp(itemsize),
                       meminfo=None)
        return array._getvalue()

    return array_type(n, dtype), codegen


@overload(local, inline="always", prefer_literal=True)
def _local(n, dtype):
    if isinstance(n, types.IntegerLiteral):
        return lambda n, dtype: _zeros_in_frame(n, dtype)
    return lambda n, dtype: np.zeros(n, dtype)


@intrinsic
def borrowed(typingctx, value):
    """``value`` itself for a number, and for an array the array without its owner: the same
    data, shape and strides, no reference to count. Only a kernel's argument may be borrowed
    (its caller keeps it alive for the call; an array the kernel made is freed once its
    variable is no longer read, the view still pointing at it), and the view must not leave
    the kernel, as :func:`local`'s arrays must not."""
    if isinstance(value, (types.Number, types.Boolean)):
        return value(value), lambda context, builder, signature, args: args[0]
    if not isinstance(value, types.Array):
        return None

    def codegen(context, builder, signature, args):
        source = make_array(value)(context, builder, args[0])
        view = make_array(value)(context, builder)
        populate_array(view, data=source.data, shape=source.shape, strides=source.strides, itemsize=source.itemsize,
                       meminfo=None)
        return view._getvalue()

    return value(value), codegen
