import type { ControllerConfig } from '../api/index.js';
import { CliError } from './exit.js';

/** pino's levels; `trace` and `fatal` are where zap's custom verbosities and `panic` land. */
export type PinoLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
export type TimeEncoding = 'epoch' | 'millis' | 'nano' | 'iso8601';

export interface LogSettings {
  level: PinoLevel;
  encoding: 'console' | 'json';
  /** How `json` lines write the time (zap's --zap-time-encoding); console output shows a clock time. */
  time?: TimeEncoding;
}

/** controller-runtime's zap flags, as spire-controller-manager's command line takes them. */
export interface ZapFlags {
  zapLogLevel?: string;
  zapEncoder?: string;
  zapDevel?: boolean;
  zapStacktraceLevel?: string;
  zapTimeEncoding?: string;
}

/**
 * The logger's level and encoding from the config and the zap flags. A flag
 * beats the file (the `--config` help upstream: "command-line flags override
 * configuration from this file"); an empty `logLevel`/`logEncoding` in the
 * file (OpenShift's operator writes them so) means unset; `--zap-devel`
 * chooses where neither says (true: debug and console, false: info and
 * json, zap's development and production defaults); otherwise info and
 * console. Throws CliError for a value zap would refuse, in its words.
 * Returns warnings for flags that have no counterpart here.
 */
export function logSettings(config: Pick<ControllerConfig, 'logLevel' | 'logEncoding'>, flags: ZapFlags): { settings: LogSettings; warnings: string[] } {
  const warnings: string[] = [];
  const devel = flags.zapDevel;
  const level = flags.zapLogLevel !== undefined ? zapLevel(flags.zapLogLevel) : config.logLevel || (devel === true ? 'debug' : 'info');
  const encoding = flags.zapEncoder !== undefined ? zapEncoder(flags.zapEncoder) : config.logEncoding || (devel === false ? 'json' : 'console');
  if (flags.zapStacktraceLevel !== undefined) {
    if (!['info', 'error', 'panic'].includes(flags.zapStacktraceLevel.toLowerCase())) throw new CliError(`invalid value "${flags.zapStacktraceLevel}" for flag --zap-stacktrace-level: invalid stacktrace level "${flags.zapStacktraceLevel}"`);
    warnings.push('--zap-stacktrace-level has no effect: errors are logged as one line (--debug adds stack traces to a command\'s final error)');
  }
  let time: TimeEncoding | undefined;
  if (flags.zapTimeEncoding !== undefined) {
    time = zapTime(flags.zapTimeEncoding);
    if (encoding === 'console') warnings.push('--zap-time-encoding applies to json logs; console logs show the local clock time');
  }
  return { settings: { level, encoding, time }, warnings };
}

function zapLevel(value: string): PinoLevel {
  const v = value.toLowerCase();
  if (v === 'debug' || v === 'info' || v === 'error') return v;
  // zap's flag does not take warn; accepting it is harmless and what a reader of our logLevel expects.
  if (v === 'warn') return 'warn';
  if (v === 'panic') return 'fatal';
  // A positive integer N is zap level -N: 1 is debug, more is more verbose than debug.
  if (/^[0-9]+$/.test(value) && Number(value) > 0) return Number(value) === 1 ? 'debug' : 'trace';
  throw new CliError(`invalid value "${value}" for flag --zap-log-level: invalid log level "${value}"`);
}

function zapEncoder(value: string): 'console' | 'json' {
  const v = value.toLowerCase();
  if (v === 'json' || v === 'console') return v;
  throw new CliError(`invalid value "${value}" for flag --zap-encoder: invalid encoder value "${value}"`);
}

function zapTime(value: string): TimeEncoding {
  switch (value.toLowerCase()) {
    case 'epoch':
      return 'epoch';
    case 'millis':
      return 'millis';
    case 'nano':
      return 'nano';
    case 'iso8601':
    case 'rfc3339':
    case 'rfc3339nano':
      return 'iso8601';
    default:
      throw new CliError(`invalid value "${value}" for flag --zap-time-encoding: invalid time-encoding value "${value}"`);
  }
}
