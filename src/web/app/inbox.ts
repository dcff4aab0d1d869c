// The inbox: every approval waiting for a person, with its message; approve, or reject with a comment.
import { h, type JSX } from 'preact';
import { useState } from 'preact/hooks';
import { postJson } from './api';
import { ago } from './format';
import { useLiveVersion } from './live';
import type { Approval } from './types';
import { useRead } from './use-read';

export function InboxPage(): JSX.Element {
  const version = useLiveVersion(null);
  const [decided, setDecided] = useState(0);
  const { data, error } = useRead<{ approvals: Approval[] }>('/api/inbox', version + decided);
  if (!data) return h('p', { class: error ? 'refused' : 'note' }, error ?? 'Reading the inbox…');
  return h(
    'main',
    { class: 'inbox' },
    h('h1', null, `Inbox (${data.approvals.length})`),
    data.approvals.length === 0 && h('p', { class: 'note' }, 'No approval is waiting.'),
    data.approvals.map((approval) => h(ApprovalCard, { key: approval.node_run_id, approval, onDecided: () => setDecided((n) => n + 1) })),
  );
}

function ApprovalCard(props: { approval: Approval; onDecided: () => void }): JSX.Element {
  const { approval } = props;
  const [comment, setComment] = useState('');
  const [refusal, setRefusal] = useState<string | null>(null);
  const decide = (decision: 'approve' | 'reject') =>
    postJson('/api/approvals', { loop_id: approval.loop_id, node: approval.node, decision, ...(comment ? { comment } : {}) }).then(
      props.onDecided,
      (error: Error) => setRefusal(error.message),
    );
  return h(
    'article',
    { class: 'approval', 'data-approval': approval.node_run_id },
    h('h2', null, h('a', { href: `#/loops/${approval.loop_id}` }, approval.loop_name), ` · ${approval.node}`),
    h('p', { class: 'where' }, `${approval.spec_name ?? 'no spec'} · round ${approval.round} · waiting ${ago(approval.waiting_since)}`),
    h('pre', { class: 'message' }, approval.message),
    h('textarea', {
      name: 'comment',
      placeholder: 'Comment (needed to reject)',
      value: comment,
      onInput: (event: Event) => setComment((event.target as HTMLTextAreaElement).value),
    }),
    h(
      'div',
      { class: 'buttons' },
      h('button', { 'data-decision': 'approve', onClick: () => void decide('approve') }, 'Approve'),
      h('button', { 'data-decision': 'reject', onClick: () => void decide('reject') }, 'Reject'),
    ),
    refusal && h('p', { class: 'refused', role: 'status' }, refusal),
  );
}
