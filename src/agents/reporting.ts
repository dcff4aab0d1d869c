// How an agent canopy started reports on its own node run. The MCP server's instructions carry it, but
// not every CLI passes those on to its model (codex does not), so every agent prompt ends with it too.

export const REPORTING_CONTRACT =
  'When your work is done, report it before you exit: call the MCP tool loop_complete_node with status "pass" or "fail", ' +
  'a one-line summary of what you did or found, and in output whatever the next step should read. ' +
  'If you cannot go on without a person (missing access, an unclear spec, a decision that is not yours), call loop_report_blocker ' +
  'with what they must do. Without the MCP tools, run `canopy node complete --status pass|fail --output "<summary and output>"` ' +
  'or `canopy node block --reason "<what they must do>"` in your shell.';

/** The rendered prompt followed by the reporting contract, set apart so it does not read as part of the task. */
export function withReportingContract(prompt: string): string {
  return `${prompt.trimEnd()}\n\n---\n[canopy] ${REPORTING_CONTRACT}\n`;
}
