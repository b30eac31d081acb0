"""bench/run's driver library: plan, servers, load, process accounting, report."""
