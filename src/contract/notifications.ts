// The delivery of one notification: its workflow's id and input, and how long its attempts go on.

export const notificationWorkflowId = (notificationId: string): string => `notify-${notificationId}`;

export interface NotificationInput {
  notificationId: string;
}

/** How long one attempt waits for the receiver to answer. */
export const DELIVERY_TIMEOUT_SECONDS = 10;

/**
 * Attempts at one message: the first, then after 5 s, doubling, at most 2 minutes apart; with every
 * receiver answering at once, the last is about 6.5 minutes after the first, and about 8 when none ever
 * answers. A receiver that refuses the message (a 4xx other than 408 and 429) is not asked again.
 */
export const DELIVERY_RETRY = {
  initialInterval: '5 seconds',
  backoffCoefficient: 2,
  maximumInterval: '2 minutes',
  maximumAttempts: 8,
} as const;
