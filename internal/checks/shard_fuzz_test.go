package checks

import (
	"encoding/json"
	"testing"
)

// plumb merge reads shard reports users hand it: whatever the checks
// sections say, merging returns a section or an error, never panics.
func FuzzMergeShards(f *testing.F) {
	f.Add(`{"result":{"check_results":[{"check_id":"G1","agents_check_results":[{"agent_id":"dev","status":"executed","facts":[{"check_id":"G1","name":"w","value":1}],"values":[],"expectation_evaluations":[{"name":"same","type":"expect_same","return_value":["a"]}]}]}],"timeout":[]},`+
		`"merge":{"targets":["dev"],"check_ids":["G1"],"checks":{"G1":{"severity":"warning","target_type":"group","expectations":[{"name":"same","type":"expect_same"}]}},`+
		`"same":[{"check_id":"G1","expectation":"same","values":{"dev":"k1"}}],"pending":[{"check_id":"G1","expectation":"same","target":"dev","value":"[\"a\"]","finding":{"rule_id":"check/G1"},"config_suppressions":[0]}]}}`,
		`{"result":{"check_results":[{"check_id":"G1","agents_check_results":[{"agent_id":"prod","status":"executed","facts":[],"values":[],"expectation_evaluations":[{"name":"same","type":"expect_same","return_value":["b"]}]}]}],"timeout":[]},`+
			`"merge":{"targets":["prod"],"check_ids":["G1"],"checks":{"G1":{"severity":"warning","target_type":"group","expectations":[{"name":"same","type":"expect_same"}]}},`+
			`"same":[{"check_id":"G1","expectation":"same","values":{"prod":"k2"}}],"base_same":[],"pending":[{"check_id":"G1","expectation":"same","target":"prod","value":"[\"b\"]","finding":{"rule_id":"check/G1"}}]}}`)
	// Two applications, each with its own environments in both shards.
	f.Add(`{"result":{"check_results":[{"check_id":"G1","agents_check_results":[{"agent_id":"a/overlays/dev","status":"executed","facts":[],"values":[],"expectation_evaluations":[{"name":"same","type":"expect_same","return_value":["a"]}]},`+
		`{"agent_id":"b/overlays/dev","status":"executed","facts":[],"values":[],"expectation_evaluations":[{"name":"same","type":"expect_same","return_value":["b"]}]}]}],"timeout":[]},`+
		`"merge":{"targets":["a/overlays/dev","b/overlays/dev"],"check_ids":["G1"],"checks":{"G1":{"severity":"warning","target_type":"group","expectations":[{"name":"same","type":"expect_same"}]}},`+
		`"same":[{"check_id":"G1","expectation":"same","values":{"a/overlays/dev":"k1","b/overlays/dev":"k2"},"applications":{"a/overlays/dev":"a","b/overlays/dev":"b"}}],`+
		`"pending":[{"check_id":"G1","expectation":"same","target":"a/overlays/dev","value":"[\"a\"]","finding":{"rule_id":"check/G1"}},{"check_id":"G1","expectation":"same","target":"b/overlays/dev","value":"[\"b\"]","finding":{"rule_id":"check/G1"}}]}}`,
		`{"result":{"check_results":[{"check_id":"G1","agents_check_results":[{"agent_id":"a/overlays/prod","status":"executed","facts":[],"values":[],"expectation_evaluations":[{"name":"same","type":"expect_same","return_value":["a"]}]}]}],"timeout":[]},`+
			`"merge":{"targets":["a/overlays/prod"],"check_ids":["G1"],"checks":{"G1":{"severity":"warning","target_type":"group","expectations":[{"name":"same","type":"expect_same"}]}},`+
			`"same":[{"check_id":"G1","expectation":"same","values":{"a/overlays/prod":"k3"},"applications":{"a/overlays/prod":"a"}}],"pending":[{"check_id":"G1","expectation":"same","target":"a/overlays/prod","value":"[\"c\"]","finding":{"rule_id":"check/G1"}}]}}`)
	f.Add(`{"merge":{}}`, `{}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		out, err := ShardSection{}.MergeShards([]json.RawMessage{json.RawMessage(a), json.RawMessage(b)})
		if err == nil {
			if _, err := json.Marshal(out); err != nil {
				t.Fatalf("the merged section does not marshal: %v", err)
			}
		}
	})
}
