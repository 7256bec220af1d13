// read_parquet.mjs FILE: reads a deskpilot hf-parquet dataset with DuckDB
// (an independent reader: its own parquet implementation) and prints one
// JSON object per row on stdout, every column included; BLOBs (the images'
// PNG bytes) as base64. The Go tests compare it with what they wrote.
import { DuckDBInstance } from '@duckdb/node-api';

const file = process.argv[2];
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const esc = file.replaceAll("'", "''");
// Images: DuckDB returns BLOBs as bytes; base64 keeps them exact in JSON.
const q = `select * exclude (images),
  list_transform(images, i -> {'bytes': to_base64(i.bytes), 'path': i.path}) as images
  from read_parquet('${esc}') order by id`;
const r = await c.runAndReadAll(q);
const cols = (await c.runAndReadAll(`select name, type from parquet_schema('${esc}')`)).getRowObjectsJson();
process.stdout.write(JSON.stringify({ schema: cols, rows: r.getRowObjectsJson() }) + '\n');
