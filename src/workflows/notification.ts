// One notification's delivery, apart from the loop it tells of: its attempts and their waits never
// hold the loop back, and a receiver that is down, slow or failing only fails this workflow's activity.
import { proxyActivities } from '@temporalio/workflow';
import { DELIVERY_RETRY, DELIVERY_TIMEOUT_SECONDS, type LoopActivities, type NotificationInput } from '../contract';

const { deliverNotification } = proxyActivities<LoopActivities>({
  // The receiver's answer, and the store's record of the attempt.
  startToCloseTimeout: `${DELIVERY_TIMEOUT_SECONDS + 20} seconds`,
  retry: DELIVERY_RETRY,
});

export async function notificationWorkflow(input: NotificationInput): Promise<string> {
  return deliverNotification(input);
}
