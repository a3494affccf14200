"""The goal of the vmcap strategy: more room for the target flavors (vmcap's objective).

Watcher's ``server_consolidation`` goal measures released compute nodes; a vmcap plan gathers
scattered free pNUMA capacity so that more VMs of the target flavors fit, and usually releases no
node, so that goal's efficacy (released nodes / nodes) would report 0 for a plan that works. This
goal reports what the plan states instead: Σ weight × capacity of the target flavors before and
after, and the live migrations it takes.
"""

from watcher.decision_engine.goal import base
from watcher.decision_engine.goal.efficacy import base as efficacy_base
from watcher.decision_engine.goal.efficacy import indicators
from watcher.decision_engine.solution import efficacy


class _Number(indicators.IndicatorSpecification):
    """A required non-negative number indicator."""

    def __init__(self, name, description):
        super().__init__(name=name, description=description, unit=None)

    @property
    def schema(self):
        return {"type": "number", "minimum": 0}


class WeightedCapacityBefore(_Number):
    def __init__(self):
        super().__init__("weighted_capacity_before",
                         "Sum over the target flavors of weight x VMs of the flavor that fit, "
                         "before the plan (vmcap's objective_before).")


class WeightedCapacityAfter(_Number):
    def __init__(self):
        super().__init__("weighted_capacity_after",
                         "The same sum once every live migration of the plan is done "
                         "(vmcap's objective_after).")


class VmcapCapacitySpec(efficacy_base.EfficacySpecification):
    """Indicators: migrations, weighted capacity before and after; global: the gain."""

    def get_indicators_specifications(self):
        return [indicators.InstanceMigrationsCount(), WeightedCapacityBefore(),
                WeightedCapacityAfter()]

    def get_global_efficacy_indicator(self, indicators_map=None):
        gain = 0
        if indicators_map and "weighted_capacity_after" in indicators_map:
            gain = (indicators_map.weighted_capacity_after -
                    indicators_map.weighted_capacity_before)
        return [efficacy.Indicator(
            name="weighted_capacity_gain",
            description="Weighted capacity of the target flavors gained by the plan "
                        "(after minus before, in VMs x weight).",
            unit=None, value=gain)]


class VmcapCapacity(base.Goal):
    """More VMs of the target flavors fit, within a live-migration budget."""

    @classmethod
    def get_name(cls):
        return "vmcap_capacity"

    @classmethod
    def get_display_name(cls):
        return "NUMA-aware capacity for target flavors (vmcap)"

    @classmethod
    def get_translatable_display_name(cls):
        return "NUMA-aware capacity for target flavors (vmcap)"

    @classmethod
    def get_efficacy_specification(cls):
        return VmcapCapacitySpec()
