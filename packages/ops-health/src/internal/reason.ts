import { goDuration } from './go-format.ts';

/** Longest reason kept from a checker, so one misbehaving checker cannot bloat every response. */
export const MAX_REASON_LENGTH = 4_096;

/** The readable text of whatever a checker rejected with, without stack traces. */
export function reasonOf(error: unknown): string {
  let text: string;
  if (error instanceof Error) text = error.message || error.name;
  else if (typeof error === 'string') text = error;
  else if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    text = (error as { message: string }).message;
  } else text = String(error);
  if (text === '') text = 'health check failed';
  return text.length > MAX_REASON_LENGTH ? `${text.slice(0, MAX_REASON_LENGTH)}…` : text;
}

export function timeoutReason(timeoutMs: number): string {
  return `health check timed out after ${goDuration(timeoutMs)}`;
}
