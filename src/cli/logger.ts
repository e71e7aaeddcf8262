import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from '../api/index.js';

/**
 * Logs go to stderr, so stdout carries only a command's output (a plan, a
 * rendered entry) and can be piped. `console` is human-readable, `json` is
 * one object per line, as upstream's logEncoding.
 */
export function createLogger(level: LogLevel, encoding: 'console' | 'json'): Logger {
  if (encoding === 'json') return pino({ level }, pino.destination({ dest: 2, sync: true }));
  return pino({ level }, pretty({ destination: 2, sync: true, colorize: process.stderr.isTTY, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' }));
}
