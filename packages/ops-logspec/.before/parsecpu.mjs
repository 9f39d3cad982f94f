import * as oldM from './index.js';
import * as newM from '../dist/spec.js';
const names = Array.from({ length: 100_000 }, (_, i) => `gossip.peer${i}`);
const spec = names.map((n, i) => `${n}=${i % 2 ? 'info' : 'error'}`).join(':');
const cpu = (f) => { const t = process.cpuUsage(); f(); const c = process.cpuUsage(t); return (c.user + c.system) / 1000; };
const r = { old: [], new: [], fmtOld: [], fmtNew: [] };
for (let i = 0; i < 7; i++) {
  let p; r.old.push(cpu(() => { p = oldM.parseSpec(spec); })); r.fmtOld.push(cpu(() => oldM.formatSpec(p)));
  let q; r.new.push(cpu(() => { q = newM.parseSpec(spec); })); r.fmtNew.push(cpu(() => newM.formatSpec(q)));
}
const med = (a) => [...a].sort((x, y) => x - y)[3].toFixed(1);
console.log(`100k loggers, ${spec.length} chars: parse old ${med(r.old)} ms, new ${med(r.new)} ms CPU; format old ${med(r.fmtOld)}, new ${med(r.fmtNew)}`);
