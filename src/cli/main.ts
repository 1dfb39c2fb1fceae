/**
 * The `coffer` command line: dispatches to one subcommand module each.
 * Subcommands are added here as they are implemented; an unknown one exits with status 2.
 */
import { readFileSync } from 'node:fs';
import { packageFile } from '../runtime/package-root.ts';

interface Subcommand {
  summary: string;
  /** For a subcommand that takes no flags: printed (with the summary) for `--help` / `-h`. */
  usage?: string;
  run(args: string[]): Promise<number>;
}

const subcommands: Record<string, Subcommand> = {
  crds: {
    summary: 'print the coffer.dev CustomResourceDefinitions (YAML)',
    usage: 'usage: coffer crds',
    run: async () => {
      const [{ allCrdsYaml }, { buildAllCrds }, { kindDefinitions }] = await Promise.all([
        import('../api/crd/render.ts'),
        import('../api/crd/build.ts'),
        import('../controllers/registry.ts'),
      ]);
      process.stdout.write(allCrdsYaml(buildAllCrds(kindDefinitions)));
      return 0;
    },
  },
  devserver: {
    summary: 'run the API-compatible local service',
    run: async (args) => (await import('./devserver.ts')).runDevServer(args),
  },
  operator: {
    summary: 'run the operator (reconciles the coffer.dev resources)',
    run: async (args) => (await import('./operator.ts')).runOperator(args),
  },
  sandbox: {
    summary: 'run a local control plane, devserver, operator and the samples (npm run sandbox)',
    run: async (args) => (await import('./sandbox.ts')).runSandbox(args),
  },
  version: {
    summary: 'print the version',
    usage: 'usage: coffer version',
    run: () => {
      const pkg = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as {
        version: string;
      };
      console.log(`coffer ${pkg.version}`);
      return Promise.resolve(0);
    },
  },
};

function usage(): string {
  const lines = Object.entries(subcommands).map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`);
  return `usage: coffer <command> [flags]\n\ncommands:\n${lines.join('\n')}`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name ? 0 : 2;
  }
  const command = subcommands[name];
  if (!command) {
    console.error(`coffer: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  if (command.usage && (rest.includes('--help') || rest.includes('-h'))) {
    console.log(`${command.usage}\n\n${command.summary}`);
    return 0;
  }
  return command.run(rest);
}

process.exitCode = await main(process.argv.slice(2));
