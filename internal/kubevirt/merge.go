package kubevirt

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// MergeShards combines the kubevirt sections of shard reports (plumb merge):
// every VirtualMachine belongs to one render target and every target to one
// shard, so the VMs are put back in target order — each target's VMs in the
// order its shard listed them, as an unsharded run lists them — and the
// summary is counted again.
func (Section) MergeShards(parts []json.RawMessage) (any, error) {
	byTarget := map[string][]VMReport{}
	var targets []string
	for i, p := range parts {
		var s Section
		if err := json.Unmarshal(p, &s); err != nil {
			return nil, fmt.Errorf("shard %d: %w", i+1, err)
		}
		for _, vm := range s.VirtualMachines {
			t := vm.Object.Target
			if _, ok := byTarget[t]; !ok {
				targets = append(targets, t)
			}
			byTarget[t] = append(byTarget[t], vm)
		}
	}
	slices.SortFunc(targets, strings.Compare)
	out := &Section{VirtualMachines: []VMReport{}, Summary: Summary{Outcomes: map[string]int{}}}
	for _, t := range targets {
		for i := range byTarget[t] {
			out.VirtualMachines = append(out.VirtualMachines, byTarget[t][i])
			out.Summary.count(&byTarget[t][i])
		}
	}
	return out, nil
}
