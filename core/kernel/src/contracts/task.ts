/**
 * Benchmark content as sources produce it. Everything here is plain JSON data (paths are absolute
 * host paths), so a task travels inside a serializable trial spec.
 */
export interface Task {
  id: string;
  title: string;
  description?: string;
  /** The source plugin that produced the task, and the directory it came from. */
  source: string;
  root: string;
  /** How the agent's program is run, e.g. `python main.py`; substituted into specs. */
  entrypoint: string;
  language: string;
  environment: EnvironmentNeeds;
  /** Directory whose contents start the workspace (empty workspace when absent). */
  seed?: string;
  steps: Step[];
  /** Components the design should end up with (for faithfulness scoring). */
  components?: Component[];
  /** The full specification given by single-shot scripts when it is not just the steps joined. */
  fullSpec?: string;
  /**
   * The steps' prompts are the whole of what the benchmark tells its agent (IDE-Bench's task
   * block): scripts deliver them as written, without notes of their own ("Write a program…"),
   * unless the experiment gives the script a prompt, template or note.
   */
  promptsAsWritten?: boolean;
  timeouts: { caseMs: number };
  /** A hash of everything the task is made of, for lock.json. */
  hash: string;
  metadata: Record<string, unknown>;
}

export interface EnvironmentNeeds {
  image?: string;
  /**
   * What was established in `image`, in words, when the task's tests were validated there
   * (`dataset /x was validated in image y (Python 3.11, pytest 8.3)`). An environment that does
   * not run images (local) names it in its warning before a run: there the tests run with the
   * host's interpreter and packages, which may pass or fail them for reasons not the agent's.
   */
  validatedIn?: string;
  dockerfile?: string;
  /** Commands run in the sandbox once after it opens, before the agent starts. */
  setup?: string[];
  /** Toolchains the task needs (python, node...), for environments that build images. */
  toolchains?: string[];
  network?: 'none' | 'open';
  /**
   * Where the task's programs expect the workspace, as an absolute path in the sandbox
   * (IDE-Bench: its Dockerfile's WORKDIR, /app). Environments that can put it there do (docker,
   * local with bubblewrap); elsewhere it is where the environment puts it.
   */
  workspace?: string;
  /**
   * Why the task cannot run unless the workspace is at `workspace`, with where that is said (its
   * hidden tests read `/app/project/...`: `tasks/task-1/task_tests.py:5`). An environment that
   * cannot put it there refuses the task in `check`, naming this.
   */
  workspaceRequired?: string;
  /**
   * Workspace-relative paths the seed holds that belong to the task, not to the agent (a
   * benchmark's static data files): every sandbox gets them from the seed, one opened on a
   * snapshot too, and snapshots leave them out, so they are never scored as the agent's code.
   */
  assets?: string[];
  /**
   * What the task's programs (the solution and its hidden tests) need on the sandbox's PATH.
   * Environments check it before a run (`Environment.check`), so a task that cannot run there is
   * refused with what is missing instead of scoring low.
   */
  requires?: Requirements;
}

export interface Requirements {
  /** Lowest version `python3` must be, as `3.12`. */
  python?: string;
  /** Python distributions `python3` must have installed, by their pip names (`pytest-timeout`, `httpx`). */
  pythonPackages?: string[];
  /**
   * Other Python interpreters the task's programs start, each with the distributions it must have:
   * the interpreter that runs a benchmark's hidden tests (`/usr/bin/python3`: pytest,
   * pytest-timeout) when it is not `python3` on PATH. Each is probed itself (and held to `python`),
   * so a version manager's shim first on PATH answers only for `python3`.
   */
  interpreters?: Record<string, string[]>;
  /** Programs that must be on PATH (`uv`, `node`, `g++`, `rustc`). */
  commands?: string[];
  /**
   * Where a requirement was stated (`file:line`), by `python`, a package or a program name: named
   * next to it when it is missing, so the user knows which file asks for it.
   */
  origins?: Record<string, string>;
}

export interface Step {
  id: string;
  /** 0-based position in the task. */
  index: number;
  title?: string;
  /** All the agent sees of this step (entrypoint already substituted). */
  prompt: string;
  /** Reference workspace after this step (oracle, `isolated` script), a host directory. */
  solution?: string;
  /** Host directory with this step's hidden cases; only scorers read it. */
  cases?: string;
  /**
   * Workspace-relative paths the agent must not see while it works on this step (e.g. the tests a
   * PR adds): the runner removes them from the agent's sandbox before each turn that works on the
   * step, whatever the turn's workspace action. Scorers bring back what they need in their own sandbox.
   */
  hidden?: string[];
  /** Ids of the components this step discloses, with how explicitly (0-4). */
  discloses?: { component: string; explicitness: number }[];
  phase?: string;
  metadata: Record<string, unknown>;
}

export interface Component {
  id: string;
  description: string;
  /** Where the component should end up: a file, module or behaviour. */
  location?: string;
}
