/**
 * What a reporter contributes to `longhaul report` and `longhaul view`: tables and plots as data.
 * The report draws them without knowing the plugin, so a new reporter's figures appear as they are.
 */

export type CellValue = number | string | boolean | null;

/** How a numeric cell is shown; text cells are shown as they are. */
export type CellFormat = 'number' | 'percent' | 'usd' | 'duration' | 'text';

export interface TableColumn {
  key: string;
  label: string;
  format?: CellFormat;
  /** Digits after the point for `number`, `percent` and `usd`. */
  digits?: number;
}

/** What every figure has, whatever its kind. */
interface FigureBase {
  /** Stable within the reporter; the report keys the figure `<reporter>.<id>`. */
  id: string;
  title: string;
  note?: string;
  /**
   * The benchmark's headline: the report opens with the figures that lead, before its plots and
   * per-score tables. A reporter marks the figures its paper leads with (SlopCodeBench's Table 1);
   * when no reporter marks any, the run's first table leads.
   */
  lead?: boolean;
  /**
   * The benchmark whose figures these are (`IDE-Bench`): the report gives each section its own
   * heading, with the figures of every plugin that names it, in the order they come.
   */
  section?: string;
}

export interface TableFigure extends FigureBase {
  kind: 'table';
  columns: TableColumn[];
  rows: Record<string, CellValue>[];
}

export interface PlotChannel {
  field: string;
  title?: string;
  type?: 'quantitative' | 'ordinal' | 'nominal';
}

export interface PlotFigure extends FigureBase {
  kind: 'plot';
  /** `rect`: a heatmap, x × y cells filled by `fill`. */
  mark: 'line' | 'bar' | 'point' | 'rect';
  data: Record<string, CellValue>[];
  x: PlotChannel;
  y: PlotChannel;
  /** One series per value of this field (a condition, a series name). */
  color?: PlotChannel;
  /**
   * Fields holding the lower and upper bound of a spread around `y`: a band under a line, an
   * error bar on bars and points (an interval such as Wilson's).
   */
  band?: { low: string; high: string };
  /** A heatmap's (`rect`) cell value, coloured on a scale. */
  fill?: PlotChannel;
}

export type Figure = TableFigure | PlotFigure;

/** A figure as the run stores it in figures.json: with the label of the reporter (or scorer) that made it. */
export type StoredFigure = Figure & { reporter: string };

/** figures.json */
export interface FiguresFile {
  figures: StoredFigure[];
}
