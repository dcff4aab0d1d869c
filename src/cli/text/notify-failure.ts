// A notification's failed delivery as `loop info` and `canopy doctor` say it.
import type { NotifyFailure } from '../../client/notifications-service';

/** One line: which event, to which receiver, what went wrong, and whether it is still tried. */
export function notifyFailureText(failure: NotifyFailure): string {
  const state = failure.given_up ? 'given up' : 'trying again';
  return `the ${failure.event} message of loop ${failure.loop_id} to receiver ${failure.receiver} (${failure.url}) failed at ${failure.at}: ${failure.error} (${failure.attempts} attempt(s); ${state})`;
}
