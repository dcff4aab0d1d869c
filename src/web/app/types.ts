// What the API answers, as the pages read it (the server's types live in client/ and domain/; the app is built apart from them).
export interface Spend {
  agent_runs: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export interface LoopLine {
  loop_id: string;
  name: string;
  workdir: string;
  host: string | null;
  status: string;
  archived: boolean;
  latest_node: { node: string; round: number; status: string } | null;
  spend: Spend;
  last_activity: string;
}

export interface Overview {
  loops: LoopLine[];
  inbox_count: number;
}

export interface Vertex {
  name: string;
  kind: string;
  state: string;
  round: number;
  edges: { target: string; condition: string; loopback: boolean }[];
  ensemble: { kind: string; members: { node: string; label: string; state: string }[]; min_pass: number } | null;
  last_run_id: string | null;
}

export interface LoopPage {
  loop: {
    id: string;
    name: string;
    workdir: string;
    host: string | null;
    status: string;
    settings: Record<string, unknown>;
    specs: { id: string; name: string; status: string }[];
    agent_usage: { total: Spend; per_spec: (Spend & { spec_id: string | null })[] };
  };
  picture: { vertices: Vertex[]; running: string | null; spec: { id: string; name: string } | null; live_unavailable: string | null };
}

export interface RunLine {
  run_id: string;
  node: string;
  round: number;
  status: string;
  outcome: string | null;
  failure_kind: string | null;
  reason: string | null;
  started_at: string;
  ended_at: string | null;
  excerpt: string;
  agent: {
    platform: string;
    model: string | null;
    input_tokens: number | null;
    output_tokens: number | null;
    cost_usd: number | null;
  } | null;
}

export interface RunPage {
  runs: RunLine[];
  next_cursor: string | null;
}

export interface NodeRun {
  id: string;
  loop_id: string;
  node_name: string;
  kind: string;
  round: number;
  status: string;
  outcome: string | null;
  failure_kind: string | null;
  reason: string | null;
  input: string;
  stdout: string;
  stderr: string;
  reported_output: string | null;
  head_before: string | null;
  head_after: string | null;
  dirty_paths: string[] | null;
  executed_platform: string | null;
  executed_model: string | null;
  input_tokens: number | null;
  cached_input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  started_at: string;
  ended_at: string | null;
}

export interface Approval {
  node_run_id: string;
  loop_id: string;
  loop_name: string;
  node: string;
  spec_name: string | null;
  round: number;
  waiting_since: string;
  message: string;
}

export interface RunChanges {
  head_before: string | null;
  head_after: string | null;
  committed: { paths: string[]; patch: string; cut: boolean } | { unavailable: string } | null;
  uncommitted_paths: string[] | null;
}

export interface SpendReport {
  per_loop: ({ loop_id: string; name: string } & Spend)[];
  per_spec: ({ loop_id: string; spec_id: string | null; spec_name: string | null } & Spend)[];
  per_day: ({ day: string } & Spend)[];
}
