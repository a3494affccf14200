"""vmcap for OpenStack Watcher: a strategy (``vmcap``), its goal (``vmcap_capacity``) and a planner
that keeps vmcap's waves (``vmcap_waves``), registered as Watcher entry points in setup.cfg."""
