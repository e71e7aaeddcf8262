import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/exit.js';
import { logSettings } from '../../src/cli/log-settings.js';
import { fromUpstreamArgv } from '../../src/cli/upstream-argv.js';

const COMMANDS = new Set(['run', 'plan', 'reconcile', 'render', 'validate', 'demo', 'memory-spire']);
const translate = (...args: string[]) => fromUpstreamArgv(args, COMMANDS);

describe("spire-controller-manager's command line means `run`", () => {
  it.each<[string[], string[]]>([
    // The helm chart's container (and OpenShift's operator's).
    [['--config=controller-manager-config.yaml'], ['run', '--config', 'controller-manager-config.yaml']],
    // The chart's external controller managers.
    [['--kubeconfig=/kubeconfigs/c2', '--config=controller-manager-config-c2.yaml', '--expand-env'], ['run', '--kubeconfig', '/kubeconfigs/c2', '--config', 'controller-manager-config-c2.yaml', '--expand-env']],
    // Go's flag package: one or two dashes, the value after `=` or as the next argument.
    [['-config', 'c.yaml', '-spire-api-socket=/run/api.sock'], ['run', '--config', 'c.yaml', '--spire-api-socket', '/run/api.sock']],
    [['--zap-log-level=debug', '--zap-encoder', 'json', '--zap-devel'], ['run', '--zap-log-level', 'debug', '--zap-encoder', 'json', '--zap-devel']],
    [['--config=c.yaml', '--zap-devel=false', '--expand-env=false'], ['run', '--config', 'c.yaml', '--no-zap-devel']],
    [['--config=c.yaml', '-zap-devel=T', '--zap-stacktrace-level=error', '--zap-time-encoding=iso8601'], ['run', '--config', 'c.yaml', '--zap-devel', '--zap-stacktrace-level', 'error', '--zap-time-encoding', 'iso8601']],
    // A value may start with a dash, as Go takes it.
    [['--config', '-odd-name.yaml'], ['run', '--config', '-odd-name.yaml']],
  ])('%j', (args, expected) => {
    expect(translate(...args)).toEqual(expected);
  });

  it.each<string[]>([['run', '--config', 'c.yaml'], ['plan', '--config=c.yaml'], ['--debug', 'validate', 'x'], ['--version'], ['-V'], ['--help'], ['help', 'run'], []])('leaves our own command line alone: %j', (...args) => {
    expect(translate(...args)).toEqual(args);
  });

  it('refuses what Go would refuse: a boolean with another value, a string flag without one', () => {
    expect(() => translate('--zap-devel=maybe')).toThrow(new CliError('invalid boolean value "maybe" for -zap-devel: parse error'));
    expect(() => translate('--config')).toThrow(new CliError('flag needs an argument: -config'));
  });
});

describe('log level and encoding: zap flags over the file, an empty file value as unset', () => {
  it.each<[string, { logLevel: '' | 'debug' | 'info' | 'warn' | 'error'; logEncoding: '' | 'console' | 'json' }, Parameters<typeof logSettings>[1], { level: string; encoding: string }]>([
    ['defaults', { logLevel: 'info', logEncoding: 'console' }, {}, { level: 'info', encoding: 'console' }],
    ["OpenShift's operator's empty values", { logLevel: '', logEncoding: '' }, {}, { level: 'info', encoding: 'console' }],
    ['the file', { logLevel: 'warn', logEncoding: 'json' }, {}, { level: 'warn', encoding: 'json' }],
    ['flags over the file', { logLevel: 'warn', logEncoding: 'json' }, { zapLogLevel: 'debug', zapEncoder: 'console' }, { level: 'debug', encoding: 'console' }],
    ['--zap-devel where the file is empty', { logLevel: '', logEncoding: '' }, { zapDevel: true }, { level: 'debug', encoding: 'console' }],
    ['--zap-devel=false where the file is empty', { logLevel: '', logEncoding: '' }, { zapDevel: false }, { level: 'info', encoding: 'json' }],
    ['--zap-devel yields to the file', { logLevel: 'error', logEncoding: 'console' }, { zapDevel: false }, { level: 'error', encoding: 'console' }],
    ["zap's panic and custom verbosities", { logLevel: '', logEncoding: '' }, { zapLogLevel: 'panic' }, { level: 'fatal', encoding: 'console' }],
    ['level 1 is debug', { logLevel: '', logEncoding: '' }, { zapLogLevel: '1' }, { level: 'debug', encoding: 'console' }],
    ['level 3 is more verbose than debug', { logLevel: '', logEncoding: '' }, { zapLogLevel: '3' }, { level: 'trace', encoding: 'console' }],
    ['case as zap takes it', { logLevel: '', logEncoding: '' }, { zapLogLevel: 'DEBUG', zapEncoder: 'JSON' }, { level: 'debug', encoding: 'json' }],
  ])('%s', (_what, config, flags, expected) => {
    expect(logSettings(config, flags).settings).toMatchObject(expected);
  });

  it('refuses values zap refuses, naming the flag', () => {
    expect(() => logSettings({ logLevel: '', logEncoding: '' }, { zapLogLevel: 'loud' })).toThrow('invalid value "loud" for flag --zap-log-level: invalid log level "loud"');
    expect(() => logSettings({ logLevel: '', logEncoding: '' }, { zapLogLevel: '0' })).toThrow('invalid log level "0"');
    expect(() => logSettings({ logLevel: '', logEncoding: '' }, { zapEncoder: 'xml' })).toThrow('invalid value "xml" for flag --zap-encoder: invalid encoder value "xml"');
    expect(() => logSettings({ logLevel: '', logEncoding: '' }, { zapStacktraceLevel: 'debug' })).toThrow('invalid stacktrace level "debug"');
    expect(() => logSettings({ logLevel: '', logEncoding: '' }, { zapTimeEncoding: 'unix' })).toThrow('invalid time-encoding value "unix"');
  });

  it('maps the time encoding onto json lines, and warns about what has no counterpart', () => {
    const { settings, warnings } = logSettings({ logLevel: '', logEncoding: 'json' }, { zapTimeEncoding: 'rfc3339nano', zapStacktraceLevel: 'error' });
    expect(settings).toEqual({ level: 'info', encoding: 'json', time: 'iso8601' });
    expect(warnings).toEqual(["--zap-stacktrace-level has no effect: errors are logged as one line (--debug adds stack traces to a command's final error)"]);
  });
});
