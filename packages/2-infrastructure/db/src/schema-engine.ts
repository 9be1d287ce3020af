// Prisma's schema engine compiled to WebAssembly, driven through a driver adapter. The CLI's
// native engine is a download this platform cannot rely on (air-gapped data centres, locked
// build machines); the WASM engine ships inside an npm package and speaks through the same
// adapters the application uses.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';

type SchemaEngineClass = typeof SchemaEngine;
// Node has WebAssembly; TypeScript declares it only in the DOM library.
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
};
let engineClass: Promise<SchemaEngineClass> | undefined;

// wasm-bindgen keeps one instance per process; instantiating it twice crashes.
function loadEngineClass(): Promise<SchemaEngineClass> {
  engineClass ??= (async () => {
    const runtimeUrl = import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const runtime = await import(runtimeUrl);
    const bytes = await readFile(fileURLToPath(new URL('schema_engine_bg.wasm', runtimeUrl)));
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {
      './schema_engine_bg.js': runtime,
    });
    runtime.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return runtime.SchemaEngine as SchemaEngineClass;
  })();
  return engineClass;
}

export async function openSchemaEngine(
  adapter: SqlMigrationAwareDriverAdapterFactory,
  schema?: { path: string; content: string },
): Promise<SchemaEngine> {
  const Engine = await loadEngineClass();
  const datamodels: [string, string][] | undefined = schema ? [[schema.path, schema.content]] : undefined;
  return Engine.new({ datamodels }, () => {}, bindMigrationAwareSqlAdapterFactory(adapter));
}
