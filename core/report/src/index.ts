export { buildReport, type ReportOptions, renderReport, reportData, scriptJson } from './build-report.js';
export { compareRuns, type RunComparison } from './compare.js';
export {
  type ExportFormat,
  exportFormats,
  formatRows,
  type TidyRow,
  tidyColumns,
  tidyRows,
  toCsv,
  toJsonl,
  toParquet,
} from './export.js';
export { type LoadedRun, loadRun, type SummaryConditions } from './load-run.js';
export * from './model.js';
export { startViewer, type Viewer, type ViewerOptions } from './serve.js';
export { type StepDetail, trialDetail } from './trial-detail.js';
export { detailLimit, textLimit, truncate } from './truncate.js';
