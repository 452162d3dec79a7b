/**
 * @module cli — the `switchyard` command line: init, compile, dryrun, deploy, generate, migrate.
 * Run as `switchyard …` (package.json bin) or `node --import tsx cli/index.ts …`.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CLI_VERSION, loadDotEnv } from './project.js';
import { bold, CliError, printError } from './ui.js';

const HELP = `${bold(`switchyard ${CLI_VERSION}`)} — custom integrations for Switchyard

Usage: switchyard <command> [options]

  init [dir] [--integration key] [--provider name]
                                      scaffold a project with an example sync and action; without
                                      --provider, <integration>/provider.yaml defines its provider
  compile                             type-check and bundle every script; writes build/manifest.json
  dryrun <script> <connection-id>     run a script against a real connection; saves nothing
      [--integration key] [--input json|@file] [--metadata json|@file] [--checkpoint json] [-e env]
  deploy <env> | deploy --env <env>   compile, create or replace the project's providers (providers.yaml,
                                      <integration>/provider.yaml), show new / changed / removed, deploy
      [--yes] [--activate] [--integration key]
  generate [-e env] [--out file]      write a typed client module for your backend
  migrate                             turn a nango.yaml into TypeScript script stubs

Options: --dir <project> (default: the current folder), -e/--env <env> (default: dev), --version, --help
Environment: SWITCHYARD_HOST (default http://localhost:3003), SWITCHYARD_SECRET_KEY_<ENV>; a .env in the project is read.
  In a Nango project NANGO_HOST (or NANGO_HOSTPORT) and NANGO_SECRET_KEY_<ENV> work too, scripts import 'nango' as they are,
  and Nango's --integration-id and --auto-confirm mean --integration and --yes.
`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      dir: { type: 'string' },
      env: { type: 'string', short: 'e' },
      integration: { type: 'string', short: 'i' },
      // Nango's CLI names for the same options, so its commands work as they are.
      'integration-id': { type: 'string' },
      'auto-confirm': { type: 'boolean' },
      provider: { type: 'string', short: 'p' },
      input: { type: 'string' },
      metadata: { type: 'string', short: 'm' },
      checkpoint: { type: 'string', short: 'c' },
      out: { type: 'string', short: 'o' },
      yes: { type: 'boolean', short: 'y' },
      activate: { type: 'boolean' },
      version: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.version) {
    process.stdout.write(`${CLI_VERSION}\n`);
    return 0;
  }
  const [command, ...args] = positionals;
  if (values.help || !command) {
    process.stdout.write(HELP);
    return command || values.help ? 0 : 1;
  }
  const dir = path.resolve(values.dir ?? '.');
  if (command !== 'init') loadDotEnv(dir);
  const env = values.env ?? 'dev';
  const integration = values.integration ?? values['integration-id'];
  switch (command) {
    case 'init':
      return (await import('./init.js')).init(path.resolve(values.dir ?? '.', args[0] ?? 'switchyard-integrations'), {
        integration: values.integration ?? values.provider ?? 'generic-api',
        provider: values.provider,
      });
    case 'compile':
      await (await import('./deploy.js')).compile(dir, { integration });
      return 0;
    case 'dryrun': {
      const [script, connectionId] = args;
      if (!script || !connectionId) throw new CliError('dryrun needs a script name and a connection id', 'run: switchyard dryrun <script> <connection-id>');
      return (await import('./dryrun.js')).dryrun({
        dir,
        script,
        connectionId,
        env,
        integration,
        input: values.input,
        metadata: values.metadata,
        checkpoint: values.checkpoint,
      });
    }
    case 'deploy': {
      const target = args[0] ?? values.env;
      if (!target) throw new CliError('deploy needs an environment', 'run: switchyard deploy dev (or deploy --env prod)');
      if (args[0] && values.env && args[0] !== values.env) throw new CliError(`Two environments given: ${args[0]} and --env ${values.env}`, 'give one');
      return (await import('./deploy.js')).deploy(dir, {
        env: target,
        yes: values.yes ?? values['auto-confirm'] ?? false,
        activate: values.activate ?? false,
        integration,
      });
    }
    case 'generate':
      return (await import('./generate.js')).generate(dir, { env, out: values.out });
    case 'migrate':
      return (await import('./migrate.js')).migrate(dir);
    default:
      throw new CliError(`Unknown command ${command}`, 'run switchyard --help');
  }
}

/** Runs the CLI and exits with its status. */
export function run(argv: string[]): void {
  main(argv).then(
    (code) => process.exit(code),
    (err: unknown) => {
      if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) printError(new CliError((err as Error).message, 'run switchyard --help'));
      else printError(err);
      process.exit(1);
    },
  );
}

if (process.argv[1] && /cli[/\\]index\.ts$/.test(process.argv[1])) run(process.argv.slice(2));
