// The web app: a hash router over the overview, a loop, a node run, the inbox and the spend.
import './app.css';
import { h, render, type JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { postJson } from './api';
import { InboxPage } from './inbox';
import { LoopPageView } from './loop-page';
import { OverviewPage } from './overview';
import { RunPageView } from './run-page';
import { SpendPage } from './spend';

function page(route: string): JSX.Element {
  const [, kind, id] = /^#\/(loops|runs|inbox|spend)\/?([A-Za-z0-9_-]*)/.exec(route) ?? [];
  if (kind === 'loops' && id) return h(LoopPageView, { key: id, loopId: id });
  if (kind === 'runs' && id) return h(RunPageView, { key: id, runId: id });
  if (kind === 'inbox') return h(InboxPage, {});
  if (kind === 'spend') return h(SpendPage, {});
  return h(OverviewPage, {});
}

function App(): JSX.Element {
  const [route, setRoute] = useState(location.hash);
  useEffect(() => {
    const follow = () => setRoute(location.hash);
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return h(
    'div',
    { class: 'app' },
    h(
      'header',
      null,
      h('a', { href: '#/', class: 'home' }, 'canopy'),
      h('a', { href: '#/inbox' }, 'Inbox'),
      h('a', { href: '#/spend' }, 'Spend'),
      h('button', { class: 'sign-out', onClick: () => void signOut() }, 'Sign out'),
    ),
    page(route),
  );
}

/** Ends the session on the server; the page then loads again without it, which is the sign-in page. */
const signOut = () =>
  postJson('/api/sign-out').then(
    () => location.assign('/'),
    (error: Error) => window.alert(error.message),
  );

render(h(App, {}), document.getElementById('app')!);
