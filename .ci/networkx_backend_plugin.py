"""pytest plugin for NetworkX's own tests run against gbgraph's backend (``.ci/networkx``).

Counts, per served function, the calls gbgraph ran and the calls it declined (with the
reasons ``can_run`` gave), prints them at the end, and fails the session when a served
function never ran on gbgraph: a test module that falls back to networkx for every call
would otherwise pass without testing the backend.
"""

import collections

import pytest

_ran = collections.Counter()
_declined = collections.defaultdict(collections.Counter)


def pytest_configure(config):
    from gbgraph import nxapi
    from gbgraph.nxapi import algorithms

    check = nxapi.Dispatcher.can_run

    def counting_can_run(name, args, kwargs):
        answer = check(name, args, kwargs)
        if answer is True:
            _ran[name] += 1
        else:
            _declined[name][answer] += 1
        return answer

    nxapi.Dispatcher.can_run = staticmethod(counting_can_run)
    config._gbgraph_served = tuple(algorithms.CAN_RUN)


def pytest_terminal_summary(terminalreporter):
    served = getattr(terminalreporter.config, "_gbgraph_served", ())
    terminalreporter.section("gbgraph backend")
    for name in served:
        terminalreporter.line(f"{name}: {_ran[name]} calls ran on gbgraph, {sum(_declined[name].values())} declined")
        for reason, count in _declined[name].most_common():
            terminalreporter.line(f"    {count} x {reason}")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    served = getattr(session.config, "_gbgraph_served", ())
    idle = [name for name in served if not _ran[name]]
    if idle and exitstatus == 0:
        session.exitstatus = 1
        print(f"\n.ci/networkx: no test ran {', '.join(idle)} on gbgraph")
