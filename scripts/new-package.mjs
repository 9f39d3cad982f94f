// Scaffolds the boilerplate files of a workspace package: node scripts/new-package.mjs <dir> "<description>"
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';

const [dir, description = ''] = process.argv.slice(2);
if (!dir) throw new Error('usage: new-package.mjs <dir> <description>');
const name = `@fabric-ops/${basename(dir)}`;
const depth = '../..';
mkdirSync(join(dir, 'src'), { recursive: true });
const write = (file, text) => {
  if (!existsSync(join(dir, file))) writeFileSync(join(dir, file), text);
};
write(
  'package.json',
  JSON.stringify(
    {
      name,
      version: '0.1.0',
      description,
      license: 'Apache-2.0',
      type: 'module',
      sideEffects: false,
      engines: { node: '>=20.11' },
      repository: { type: 'git', url: 'git+https://github.com/fabric-ops/fabric-ops.git', directory: dir },
      exports: {
        '.': {
          '@fabric-ops/source': './src/index.ts',
          import: { types: './dist/index.d.ts', default: './dist/index.js' },
          require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
        },
        './package.json': './package.json',
      },
      main: './dist/index.cjs',
      module: './dist/index.js',
      types: './dist/index.d.ts',
      files: ['dist', 'src', '!src/**/*.test.ts', 'README.md', 'CHANGELOG.md'],
      scripts: { build: 'tsup', test: 'vitest run', typecheck: 'tsc --noEmit' },
      publishConfig: { access: 'public' },
    },
    null,
    2,
  ) + '\n',
);
write('tsconfig.json', JSON.stringify({ extends: `${depth}/tsconfig.base.json`, compilerOptions: { noEmit: true }, include: ['src', 'test'] }, null, 2) + '\n');
write('tsup.config.ts', `import { defineConfig } from 'tsup';\nimport { packageBuild } from '${depth}/tsup.shared.ts';\n\nexport default defineConfig(packageBuild());\n`);
write('vitest.config.ts', `import { packageProject } from '${depth}/vitest.shared.ts';\n\nexport default packageProject('${name}');\n`);
write('src/index.ts', 'export {};\n');
