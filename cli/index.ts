/**
 * @module cli — the `switchyard` command line: init, compile, dryrun, deploy, generate, migrate.
 * Run as `switchyard …` (package.json bin) or `node --import tsx cli/index.ts …`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CLI_VERSION, loadDotEnv, PINNED_ZOD } from './project.js';
import { bold, CliError, printError } from './ui.js';

const HELP = `${bold(`switchyard ${CLI_VERSION}`)} — custom integrations for Switchyard

Usage: switchyard <command> [options]

  init [dir] [--integration key] [--provider name]
                                      scaffold a project with an example sync and action; without
                                      --provider, <integration>/provider.yaml defines its provider
  compile                             type-check and bundle every script; writes build/manifest.json
  dryrun <script> <connection-id>     run a script against a real connection; saves nothing
      [--integration key] [--type sync|action] [--input json|@file] [--metadata json|@file] [--checkpoint json] [-e env]
  deploy <env> | deploy --env <env>   compile, create or replace the project's providers (providers.yaml,
                                      <integration>/provider.yaml), show new / changed / removed, deploy
      [--yes] [--activate] [--integration key]
  generate [-e env] [--out file]      write a typed client module for your backend
  migrate                             turn a nango.yaml into TypeScript script stubs

Options: --dir <project> (default: the current folder), -e/--env <env> (default: dev), --version, --help
\`switchyard <command> --help\` explains one command.
Environment: SWITCHYARD_HOST (default http://localhost:3003), SWITCHYARD_SECRET_KEY_<ENV>; a .env in the project is read.
  In a Nango project NANGO_HOST (or NANGO_HOSTPORT) and NANGO_SECRET_KEY_<ENV> work too, scripts import 'nango' as they are,
  and Nango's --integration-id and --auto-confirm mean --integration and --yes.
`;

/** `switchyard <command> --help`: what one command does, its arguments and options. */
export const COMMAND_HELP: Record<string, string> = {
  init: `Usage: switchyard init [dir] [--integration key] [--provider name]

Scaffolds an integrations project in dir (default: switchyard-integrations): package.json (zod
${PINNED_ZOD}), tsconfig.json, .env, an example sync and action in <integration>/.

  --integration, -i <key>   the integration's key and folder (default: the provider, else generic-api)
  --provider, -p <name>     use this catalogue provider; without it, <integration>/provider.yaml defines one
`,
  compile: `Usage: switchyard compile [--integration key] [--dir project]

Type-checks every script, bundles each one and reads its manifest in the sandbox.
Writes build/<integration>/<kind>s/<name>.js and build/manifest.json. Needs no platform.

  --integration, -i <key>   compile this integration's scripts only
`,
  dryrun: `Usage: switchyard dryrun <script> <connection-id> [options]

Runs a sync, action or on-event script against a real connection on the platform, through its proxy;
prints what it would save and return, and saves nothing.

  --integration, -i <key>   the script's integration, when two have a script of that name
  --type <sync|action>      the script's type, when a sync and an action share its name
  --input <json|@file>      the action's input
  --metadata, -m <json|@file>   the connection metadata the script sees
  --checkpoint, -c <json>   the checkpoint an incremental sync starts from
  -e, --env <env>           environment (default: dev)
`,
  deploy: `Usage: switchyard deploy <env> | deploy --env <env> [--yes] [--activate] [--integration key]

Compiles, creates or replaces the project's providers (providers.yaml, <integration>/provider.yaml),
shows what is new, changed and removed, and deploys the scripts to the environment.

  --yes, -y                 confirm removing deployed scripts the project no longer has (asked otherwise)
  --activate                activate the endpoints of new scripts
  --integration, -i <key>   deploy this integration's scripts only
`,
  generate: `Usage: switchyard generate [-e env] [--out file]

Writes a typed client module for your backend from the scripts deployed to the environment.

  -e, --env <env>           environment (default: dev)
  --out, -o <file>          where to write it (default: switchyard-client.ts)
`,
  migrate: `Usage: switchyard migrate [--dir project]

Turns a nango.yaml into TypeScript script stubs (one file per sync and action, models in zod) and
renames the yaml to <name>.migrated.
`,
};

const COMMON_OPTIONS = `Every command: --dir <project> (default: the current folder). Environment: SWITCHYARD_HOST, SWITCHYARD_SECRET_KEY_<ENV>
(a .env in the project is read); DEBUG=1 prints the stack of an error.
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
      type: { type: 'string' },
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
  // `switchyard <command> --help` and `switchyard help <command>`
  const helpFor = command === 'help' ? args[0] : values.help ? command : undefined;
  if (helpFor && COMMAND_HELP[helpFor]) {
    process.stdout.write(`${COMMAND_HELP[helpFor]}\n${COMMON_OPTIONS}`);
    return 0;
  }
  if (values.help || !command || command === 'help') {
    process.stdout.write(HELP);
    return command || values.help ? 0 : 1;
  }
  const dir = path.resolve(values.dir ?? '.');
  if (command !== 'init' && !existsSync(dir)) throw new CliError(`No folder ${dir}`, 'run the command in your integrations project, or pass --dir <project>');
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
      return (await import('./compile.js')).compile(dir, { integration });
    case 'dryrun': {
      const [script, connectionId] = args;
      if (!script || !connectionId) throw new CliError('dryrun needs a script name and a connection id', 'run: switchyard dryrun <script> <connection-id>');
      if (values.type && !['sync', 'action', 'on-event'].includes(values.type))
        throw new CliError(`--type ${values.type} is not a script type`, 'pass --type sync, action or on-event');
      return (await import('./dryrun.js')).dryrun({
        dir,
        script,
        connectionId,
        env,
        integration,
        type: values.type,
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
