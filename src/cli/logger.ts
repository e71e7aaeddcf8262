import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogSettings, PinoLevel, TimeEncoding } from './log-settings.js';

/** The `time` field of json lines, as zap's time encodings write it. */
const TIME: Record<TimeEncoding, () => string> = {
  epoch: () => `,"time":${Date.now() / 1000}`,
  millis: () => `,"time":${Date.now()}`,
  nano: () => `,"time":${BigInt(Date.now()) * 1_000_000n}`,
  iso8601: () => `,"time":"${new Date().toISOString()}"`,
};

/**
 * Logs go to stderr, so stdout carries only a command's output (a plan, a
 * rendered entry) and can be piped. `console` is human-readable, `json` is
 * one object per line, as upstream's logEncoding.
 */
export function createLogger(level: PinoLevel, encoding: 'console' | 'json', time?: TimeEncoding): Logger {
  // Absent, not undefined: pino assigns its options over its defaults, and an
  // undefined timestamp would replace the default one and drop the time.
  if (encoding === 'json') return pino({ level, ...(time ? { timestamp: TIME[time] } : {}) }, pino.destination({ dest: 2, sync: true }));
  return pino({ level }, pretty({ destination: 2, sync: true, colorize: process.stderr.isTTY, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' }));
}

export function loggerFor(settings: LogSettings): Logger {
  return createLogger(settings.level, settings.encoding, settings.time);
}
