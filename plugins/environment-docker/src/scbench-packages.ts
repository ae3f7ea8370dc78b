/**
 * Every Python distribution (pip name) and program that upstream SlopCodeBench's problems need
 * where they run, as longhaul's scbench source finds it in their tests, conftests and reference
 * solutions, each with the Debian 13 package that provides it, or `null` where Debian packages none
 * (then the scbench profile's pip layer adds it, with network at build only). The scbench image
 * installs every Debian package here; what is `null` is refused without the pip layer, naming it.
 *
 * Keep it whole: a need upstream adds goes here first (`test/scbench-packages.test.ts` checks the
 * table against problems shaped like upstream's and against the images' labels).
 */
export const scbenchPackages = {
  pythonPackages: {
    // The runner's: longhaul runs the suites with pytest and pytest-timeout.
    pytest: 'python3-pytest',
    'pytest-timeout': 'python3-pytest-timeout',
    pyyaml: 'python3-yaml',
    pip: 'python3-pip',
    // Upstream's runner installs these for every suite, so tests import them undeclared.
    jsonschema: 'python3-jsonschema',
    deepdiff: 'python3-deepdiff',
    // The API problems' tests and solutions (dynamic_config_service_api, eve_market_tools, …).
    httpx: 'python3-httpx',
    pydantic: 'python3-pydantic',
    fastapi: 'python3-fastapi',
    uvicorn: 'python3-uvicorn',
    // Reference solutions.
    pandas: 'python3-pandas',
    numpy: 'python3-numpy',
    scipy: 'python3-scipy',
    typer: 'python3-typer',
    toml: 'python3-toml',
    'ruamel.yaml': 'python3-ruamel.yaml',
    sqlglot: 'python3-sqlglot',
    // Debian 13 packages none of these (tree-sitter only older than upstream's >=0.25).
    pyarrow: null,
    duckdb: null,
    'tree-sitter': null,
    'tree-sitter-language-pack': null,
  },
  commands: {
    python3: 'python3',
    git: 'git',
    pip: 'python3-pip',
    go: 'golang-go',
    cargo: 'cargo',
    rustc: 'rustc',
    gcc: 'gcc',
    'g++': 'g++',
    uv: null,
    uvx: null,
  },
} as const satisfies Record<'pythonPackages' | 'commands', Record<string, string | null>>;

/** The Debian packages of the table, each once, in its order. */
export function scbenchDebianPackages(): string[] {
  const all: (string | null)[] = [
    ...Object.values(scbenchPackages.pythonPackages),
    ...Object.values(scbenchPackages.commands),
  ];
  return [...new Set(all.filter((name): name is string => name !== null))];
}

/** What the table says Debian provides: pip names and programs. */
export function scbenchDebianHolds(): { pythonPackages: string[]; commands: string[] } {
  const provided = (table: Record<string, string | null>) =>
    Object.entries(table)
      .filter(([, debian]) => debian !== null)
      .map(([name]) => name);
  return {
    pythonPackages: provided(scbenchPackages.pythonPackages),
    commands: provided(scbenchPackages.commands),
  };
}
