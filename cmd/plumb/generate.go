package main

// The CLI reference in docs/cli is generated from the commands themselves;
// TestCLIReferenceIsCurrent fails when it is stale.
//go:generate go test -run ^TestCLIReferenceIsCurrent$ . -update-cli-reference
