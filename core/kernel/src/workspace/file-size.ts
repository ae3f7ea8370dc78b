import { z } from 'zod';

const sizePattern = /^(\d+(?:\.\d+)?)\s*([kmgt]?)b?$/i;
const units: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** A size in bytes, or with a unit as Docker writes them (powers of 1024): `512m`, `4g`, `64k`. */
export const sizeOption = z.string().regex(sizePattern, 'a size such as 512m, 4g or 1073741824');

/** `512m` → bytes (powers of 1024, as Docker counts them); a number is taken as bytes. */
export function parseSize(size: string | number): number {
  if (typeof size === 'number') return size;
  const match = sizePattern.exec(size.trim());
  if (!match) throw new Error(`"${size}" is not a size (write e.g. 512m, 4g or a number of bytes)`);
  return Math.round(Number(match[1]) * (units[(match[2] ?? '').toLowerCase()] ?? 1));
}

/** What environments take from a workspace per file unless told otherwise. */
export const defaultMaxFileSize = '32m';

/** The `maxFileSize` option of an environment: bytes (a number) or a size such as `32m`. */
export const maxFileSizeOption = z
  .union([z.number().int().positive(), sizeOption])
  .default(defaultMaxFileSize)
  .describe(
    'Largest workspace file that snapshots, pulls, diffs and scorers take, in bytes or with a unit (`64k`, `32m`, `1g`). A larger file is left out without being read: the step records its path and size (scores.json `details.snapshot.skipped`, a warning, diff.patch), and a sandbox opened from the snapshot does not have it.',
  );

/** `1073741824` → `1.0 GiB`, for messages. */
export function formatSize(bytes: number): string {
  const steps = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let step = 0;
  while (value >= 1024 && step < steps.length - 1) {
    value /= 1024;
    step++;
  }
  return step === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${steps[step]}`;
}
