import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';

/** Writes files under root; null removes one. */
export async function writeTree(root: string, files: Record<string, string | null>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    if (text === null) await rm(join(root, path));
    else {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
  }
}

const lines = (...rows: string[]) => `${rows.join('\n')}\n`;

/**
 * Writes a repository's history as a forge does: each commit by `author`, committed by GitHub
 * at the date given. `commit` writes the files (null removes one) and commits them all.
 */
export function historyWriter(repo: string, author: { name: string; email: string }) {
  const git = (date: string, ...args: string[]) =>
    execa('git', args, {
      cwd: repo,
      env: {
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
        GIT_AUTHOR_NAME: author.name,
        GIT_AUTHOR_EMAIL: author.email,
        GIT_COMMITTER_NAME: 'GitHub',
        GIT_COMMITTER_EMAIL: 'noreply@github.com',
      },
    });
  const commit = async (date: string, message: string, files: Record<string, string | null>) => {
    await writeTree(repo, files);
    await git(date, 'add', '-A');
    await git(date, 'commit', '-q', '-m', message);
  };
  return { git, commit };
}

/**
 * The package only the environment recipe installs: the exchange rates `receipts.convert`
 * imports. A recipe's context folder holds it; the Dockerfile puts it on the interpreter's path.
 */
export const fxratesPackage = {
  'fxrates/__init__.py': lines(
    '"""Fixed reference exchange rates, in hundredths of a cent per unit."""',
    '',
    'RATES = {"EUR": 10000, "USD": 9200, "GBP": 11800}',
    '',
    '',
    'def rate(currency):',
    '    try:',
    '        return RATES[currency]',
    '    except KeyError:',
    '        raise ValueError(f"unknown currency: {currency}") from None',
  ),
};

/** The Dockerfile of the recipe: the longhaul base image plus fxrates from the context, no network. */
export const receiptsDockerfile = lines(
  'ARG LONGHAUL_BASE',
  'FROM $LONGHAUL_BASE',
  'COPY fxrates /opt/vendor/fxrates',
  `RUN python3 -c "import os, site; d = site.getsitepackages()[0]; os.makedirs(d, exist_ok=True); open(os.path.join(d, 'vendor.pth'), 'w').write('/opt/vendor')"`,
);

/** Writes the recipe (a Dockerfile and its context) into dir; returns the Dockerfile's path. */
export async function writeReceiptsRecipe(dir: string): Promise<string> {
  await writeTree(dir, { Dockerfile: receiptsDockerfile, ...fxratesPackage });
  return join(dir, 'Dockerfile');
}

/**
 * `receipts`, a small Python library for shop receipts, with a history like a real repository's:
 * a start before the window, then in February 2025 three squash-merged PRs `Title (#N)` that form
 * one chain, and a direct commit between PR #2 and PR #3 that the chain folds (`--fold all`).
 *
 * - PR #1 adds totals, the shared test helper `tests/helpers.py` and a data file
 *   `tests/files/groceries.txt` its tests read through the helper.
 * - PR #2 adds money formatting; its tests import the same helper and read `tests/files/cafe.txt`.
 * - The direct commit moves the receipts under tests/files to CSV and rewrites the helper to read
 *   them: PR #1's and PR #2's helper and data files are gone from the final state, their test
 *   modules untouched.
 * - PR #3 adds currency conversion through `fxrates`, a package only the recipe installs.
 *
 * Returns the repository's path (`<dir>/receipts`).
 */
export async function buildReceipts(dir: string): Promise<string> {
  const repo = join(dir, 'receipts');
  await mkdir(repo, { recursive: true });
  const { git, commit } = historyWriter(repo, { name: 'Ada Keller', email: 'ada@example.com' });
  await git('2025-01-10T09:00:00Z', 'init', '-q', '-b', 'main');

  await commit('2025-01-10T09:00:00Z', 'Parse receipt lines', {
    'README.md': lines('# receipts', '', 'Read shop receipts: items, totals, money.'),
    'pyproject.toml': lines(
      '[project]',
      'name = "receipts"',
      'version = "0.1.0"',
      'requires-python = ">=3.9"',
      '',
      '[tool.pytest.ini_options]',
      'testpaths = ["tests"]',
    ),
    'receipts/__init__.py': lines('"""Shop receipts."""'),
    'receipts/parse.py': lines(
      'from dataclasses import dataclass',
      '',
      '',
      '@dataclass(frozen=True)',
      'class Item:',
      '    name: str',
      '    cents: int',
      '    quantity: int = 1',
      '',
      '',
      'def parse_line(line):',
      '    """`name  quantity x price` or `name  price`, price as 3.50."""',
      '    name, _, rest = line.strip().rpartition("  ")',
      '    quantity = 1',
      '    if " x " in rest:',
      '        count, rest = rest.split(" x ")',
      '        quantity = int(count)',
      '    units, _, hundredths = rest.partition(".")',
      '    return Item(name.strip(), int(units) * 100 + int(hundredths.ljust(2, "0")), quantity)',
    ),
    'tests/__init__.py': '',
    'tests/test_parse.py': lines(
      'from receipts.parse import Item, parse_line',
      '',
      '',
      'def test_parse_price():',
      '    assert parse_line("bread  2.40") == Item("bread", 240)',
      '',
      '',
      'def test_parse_quantity():',
      '    assert parse_line("milk  3 x 0.99") == Item("milk", 99, 3)',
    ),
  });

  await commit('2025-02-03T10:12:00Z', 'Add receipt totals (#1)', {
    'receipts/total.py': lines(
      'from receipts.parse import parse_line',
      '',
      '',
      'def total(items):',
      '    """The sum of the items\' prices times their quantities, in cents."""',
      '    return sum(item.cents * item.quantity for item in items)',
      '',
      '',
      'def total_of(text):',
      '    return total(parse_line(line) for line in text.splitlines() if line.strip())',
    ),
    'tests/helpers.py': lines(
      '"""What the tests share: the receipts under tests/files."""',
      'from pathlib import Path',
      '',
      'from receipts.parse import parse_line',
      '',
      'FILES = Path(__file__).parent / "files"',
      '',
      '',
      'def receipt_text(name):',
      '    return (FILES / f"{name}.txt").read_text()',
      '',
      '',
      'def receipt(name):',
      '    return [parse_line(line) for line in receipt_text(name).splitlines() if line.strip()]',
    ),
    'tests/files/groceries.txt': lines('bread  2.40', 'milk  3 x 0.99', 'apples  1.75'),
    'tests/test_total.py': lines(
      'from receipts.total import total, total_of',
      'from tests.helpers import receipt, receipt_text',
      '',
      '',
      'def test_total_of_groceries():',
      '    assert total(receipt("groceries")) == 712',
      '',
      '',
      'def test_total_of_text():',
      '    assert total_of(receipt_text("groceries")) == 712',
      '',
      '',
      'def test_total_of_nothing():',
      '    assert total([]) == 0',
    ),
  });

  await commit('2025-02-04T15:40:00Z', 'Format amounts as money (#2)', {
    'receipts/money.py': lines(
      'def format_cents(cents, symbol="€"):',
      '    """12345 -> €123.45; negative amounts keep their sign in front."""',
      '    sign = "-" if cents < 0 else ""',
      '    units, hundredths = divmod(abs(cents), 100)',
      '    return f"{sign}{symbol}{units:,}.{hundredths:02d}"',
    ),
    'tests/files/cafe.txt': lines('espresso  2 x 1.90', 'croissant  2.20', 'cake  1200.00'),
    'tests/test_money.py': lines(
      'from receipts.money import format_cents',
      'from receipts.total import total',
      'from tests.helpers import receipt',
      '',
      '',
      'def test_format_cafe_total():',
      '    assert format_cents(total(receipt("cafe"))) == "€1,206.00"',
      '',
      '',
      'def test_format_negative():',
      '    assert format_cents(-5, symbol="$") == "-$0.05"',
    ),
  });

  await commit('2025-02-05T08:30:00Z', 'Keep the test receipts as CSV', {
    'tests/files/groceries.txt': null,
    'tests/files/cafe.txt': null,
    'tests/files/groceries.csv': lines('name,quantity,price', 'bread,1,2.40', 'milk,3,0.99', 'apples,1,1.75'),
    'tests/files/cafe.csv': lines(
      'name,quantity,price',
      'espresso,2,1.90',
      'croissant,1,2.20',
      'cake,1,1200.00',
    ),
    'tests/helpers.py': lines(
      '"""Receipts for the tests: tests/files/<name>.csv, one row per item."""',
      'import csv',
      'import pathlib',
      '',
      'from receipts import parse',
      '',
      '',
      'def rows(name):',
      '    path = pathlib.Path(__file__).with_name("files") / f"{name}.csv"',
      '    with path.open(newline="") as file:',
      '        return list(csv.DictReader(file))',
      '',
      '',
      'def receipt_text(name):',
      "    return \"\".join(f\"{row['name']}  {row['quantity']} x {row['price']}\\n\" for row in rows(name))",
      '',
      '',
      'def receipt(name):',
      '    return [parse.parse_line(line) for line in receipt_text(name).splitlines()]',
    ),
  });

  await commit('2025-02-06T11:05:00Z', 'Convert totals between currencies (#3)', {
    'receipts/convert.py': lines(
      'import fxrates',
      '',
      '',
      'def convert(cents, source, target):',
      '    """An amount in source currency cents, in target currency cents, rounded half up."""',
      '    scaled = cents * fxrates.rate(source)',
      '    whole, rest = divmod(scaled, fxrates.rate(target))',
      '    return whole + (1 if 2 * rest >= fxrates.rate(target) else 0)',
    ),
    'tests/test_convert.py': lines(
      'import pytest',
      '',
      'from receipts.convert import convert',
      'from receipts.total import total',
      'from tests.helpers import receipt',
      '',
      '',
      'def test_convert_groceries_to_dollars():',
      '    assert convert(total(receipt("groceries")), "EUR", "USD") == 774',
      '',
      '',
      'def test_convert_unknown_currency():',
      '    with pytest.raises(ValueError, match="XYZ"):',
      '        convert(100, "EUR", "XYZ")',
    ),
  });
  return repo;
}
