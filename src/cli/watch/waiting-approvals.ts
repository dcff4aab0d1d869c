// The approvals a followed loop waits at, for `loop watch` and `loop run --wait`: read from the inbox
// when the loop starts waiting (again on the next picture while that read finds none), not on every picture.
import { listInbox, type InboxItem } from '../../client/approvals-service';
import type { ClientContext } from '../../client/context';
import type { LoopPicture } from '../../client/loop-picture-service';

export interface WaitingApprovals {
  items: InboxItem[];
  /** Whether the items differ from those of the picture before. */
  changed: boolean;
}

export function trackWaitingApprovals(ctx: ClientContext, loopId: string): (picture: LoopPicture) => Promise<WaitingApprovals> {
  let items: InboxItem[] = [];
  return async (picture) => {
    if (picture.status !== 'waiting') {
      const changed = items.length > 0;
      items = [];
      return { items, changed };
    }
    if (items.length) return { items, changed: false };
    items = (await listInbox(ctx)).filter((item) => item.loop_id === loopId);
    return { items, changed: items.length > 0 };
  };
}
