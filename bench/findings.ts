// Why a target is missed: written by whoever reads a run's figures (the report cannot know), keyed
// by target id (bench/targets.ts). docs/benchmarks.md shows the note beside a missed target; a
// missed target without a note says so. Keep each note to what the figures show.
export const FINDINGS: Record<string, string> = {};
