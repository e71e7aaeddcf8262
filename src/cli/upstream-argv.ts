import { CliError } from './exit.js';

/**
 * spire-controller-manager's command line: its own flags, controller-runtime's
 * `--kubeconfig` and zap flags, all parsed by Go's `flag` package. The helm
 * chart and the OpenShift operator run the container with these and no
 * subcommand (`--config=controller-manager-config.yaml`).
 */
const UPSTREAM_FLAGS: Record<string, 'string' | 'bool'> = {
  config: 'string',
  'expand-env': 'bool',
  'spire-api-socket': 'string',
  kubeconfig: 'string',
  'zap-devel': 'bool',
  'zap-encoder': 'string',
  'zap-log-level': 'string',
  'zap-stacktrace-level': 'string',
  'zap-time-encoding': 'string',
};

const HELP_OR_VERSION = new Set(['-h', '--help', '-help', '-V', '--version', '-version', 'help']);
const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/**
 * Our argv (without node and the script) from what was given: unchanged when
 * it names one of our commands, otherwise upstream's flags read as Go reads
 * them (`-flag` or `--flag`, `=value` or the next argument, booleans only
 * with `=`) and given to `run`. So the chart's container arguments work
 * as they are: `--config=F` is `run --config F`.
 */
export function fromUpstreamArgv(args: readonly string[], commands: ReadonlySet<string>): string[] {
  const first = args.find((a) => a !== '--debug');
  if (first === undefined || commands.has(first) || HELP_OR_VERSION.has(first) || !first.startsWith('-')) return [...args];
  const out: string[] = ['run'];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    // Go's flag package stops at `--` or at the first argument that is not a flag; upstream ignores the rest.
    if (arg === '--' || !arg.startsWith('-') || arg === '-') {
      out.push(...args.slice(i));
      break;
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq === -1 ? body : body.slice(0, eq);
    const kind = UPSTREAM_FLAGS[name];
    if (!kind) {
      // One of ours (--debug, --socket...), or unknown: commander says which.
      out.push(arg);
      continue;
    }
    if (kind === 'bool') {
      const value = eq === -1 ? 'true' : body.slice(eq + 1);
      if (TRUE.has(value)) out.push(`--${name}`);
      // --expand-env is off unless given; only --zap-devel has a default worth turning off.
      else if (FALSE.has(value)) out.push(...(name === 'zap-devel' ? [`--no-${name}`] : []));
      else throw new CliError(`invalid boolean value "${value}" for -${name}: parse error`);
      continue;
    }
    if (eq !== -1) {
      out.push(`--${name}`, body.slice(eq + 1));
    } else {
      const value = args[i + 1];
      if (value === undefined) throw new CliError(`flag needs an argument: -${name}`);
      out.push(`--${name}`, value);
      i++;
    }
  }
  return out;
}
