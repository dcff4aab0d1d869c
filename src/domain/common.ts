// Field shapes shared by several entities.
import { z } from 'zod';

export const Id = z.string().min(1).describe('An id returned by canopy when the entity was created');

export const NodeName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(120, 'must be at most 120 characters')
  .regex(/^[^\s/][^/]*$/, 'must not start with a space and must not contain "/" (reserved for ensemble members)')
  .describe('Node name, unique within its loop');

export const TimeoutMinutes = z
  .number()
  .positive('must be a positive number of minutes')
  .max(24 * 60, 'must be at most 1440 minutes (one day)');

export const MaxIterations = z.number().int('must be a whole number').min(1, 'must be at least 1').max(1000, 'must be at most 1000');

export const Timestamp = z.string().describe('ISO-8601 time');
