package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/report"
)

func newMergeCommand(stdout io.Writer) *cobra.Command {
	var (
		formats      []string
		failOn, gate string
		category     string
		reproducible bool
	)
	cmd := &cobra.Command{
		Use:   "merge REPORT.json...",
		Short: "Combine the JSON reports of sharded runs into one report",
		Long: `merge reads the JSON reports of every shard of one run (plumb check --shard
i/n --format json=FILE) and writes the report the unsharded run would have
written — the same bytes with --reproducible — in any format check writes.

The exit code applies --fail-on and --gate to the merged findings, as check
does; 2 when the reports are not the complete set of shards of one run.`,
		Example: `  plumb merge shard-*.json --format text --format json=plumb.json`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fo, err := config.ParseFailOn(failOn)
			if err != nil {
				return fmt.Errorf("--fail-on: %w", err)
			}
			g, err := config.ParseGate(gate)
			if err != nil {
				return fmt.Errorf("--gate: %w", err)
			}
			outs, err := report.ParseOutputs(formats)
			if err != nil {
				return err
			}
			report.WithSARIFCategory(outs, category)
			if cwd, err := os.Getwd(); err == nil {
				report.WithinRoot(outs, config.RepositoryRoot(cwd))
			}
			var in []report.ShardReport
			for _, name := range args {
				data, err := report.ReadShardFile(name)
				if err != nil {
					return err
				}
				r, err := report.ReadJSON(data)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				in = append(in, report.ShardReport{Name: name, Report: r})
			}
			merged, err := pipeline.Merge(in)
			if err != nil {
				return err
			}
			if reproducible || os.Getenv("SOURCE_DATE_EPOCH") != "" {
				merged.DurationMS = 0
			}
			if err := report.WriteAll(outs, merged, stdout); err != nil {
				return err
			}
			if code := pipeline.ExitCodeGated(merged.Findings, fo, g); code != pipeline.ExitOK {
				return exitError{code}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&formats, "format", []string{"text"}, "report format and optional file, as for check (F or F=FILE; repeatable)")
	fs.StringVar(&category, "sarif-category", "", "runAutomationDetails.id category of the SARIF report, as for check")
	fs.StringVar(&failOn, "fail-on", "error", "exit 1 when a finding is at least this severe: error, warning or never")
	fs.StringVar(&gate, "gate", string(config.GateNew), "in pull-request mode, which findings --fail-on applies to: new or all")
	fs.BoolVar(&reproducible, "reproducible", false, "write duration_ms as 0 (also on when SOURCE_DATE_EPOCH is set)")
	return cmd
}
