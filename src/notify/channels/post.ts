// What a channel makes of a notification: the request to POST to the receiver.
import type { Notification } from '../message';

export interface Post {
  headers: Record<string, string>;
  body: string;
}

export type Channel = (notification: Notification) => Post;
