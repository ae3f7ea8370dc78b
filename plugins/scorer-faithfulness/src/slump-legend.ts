/** What each metric of the faithfulness scorer means, as SLUMP defines it (§4.1, Table 1). */
const meanings: Record<string, string> = {
  mcf: "mean component faithfulness: the judge's 0–4 rubric score averaged over the task's components",
  dir: 'dependency integration ratio: public symbols of standalone modules that other code reuses ÷ those exported (0–1)',
  if50: "implementation faithfulness, SLUMP's primary endpoint: 0.5·mcf/4 + 0.5·dir (0–1)",
  fully_faithful: 'components the judge scored 4 (faithful)',
  severe: "components scored at or below the scorer's severeThreshold (default 1: absent or wrong)",
  components: "the task's components",
  judged: 'components the judge answered for',
};

/**
 * One line per metric the table shows that SLUMP defines, then what its loss, recovery and
 * W/T/L columns are; a metric of one's own gets no line rather than a guess.
 */
export function slumpLegend(metrics: string[]): string {
  return [
    ...metrics.flatMap((metric) => (meanings[metric] ? [`${metric}: ${meanings[metric]}`] : [])),
    'values are means over repeats per task, then over tasks; loss m: single-shot − condition (positive: faithfulness lost)',
    'rec m: gap recovery, (condition − emergent) ÷ (single-shot − emergent), only when that gap is positive; W/T/L m: tasks where the condition beats, ties, loses to emergent',
  ].join('\n');
}
