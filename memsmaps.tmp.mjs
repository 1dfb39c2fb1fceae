import fs from 'node:fs';
await import(process.argv[2]);
global.gc?.();
await new Promise(r=>setTimeout(r,500));
const roll = fs.readFileSync('/proc/self/smaps_rollup','utf8').split('\n').filter(l=>/^(Rss|Anonymous|Shared_Clean|Private_Clean|Private_Dirty|Shared_Dirty)/.test(l)).join(' | ');
console.log(roll);
// top mappings by rss
const lines = fs.readFileSync('/proc/self/smaps','utf8').split('\n');
const maps=[]; let cur=null;
for (const l of lines){ if (/^[0-9a-f]+-[0-9a-f]+ /.test(l)){ cur={name:l.split(/\s+/).slice(5).join(' ')||'[anon]',rss:0}; maps.push(cur);} else if (l.startsWith('Rss:')) cur.rss+=parseInt(l.split(/\s+/)[1]); }
const agg={}; for (const m of maps) agg[m.name]=(agg[m.name]||0)+m.rss;
console.log(Object.entries(agg).sort((a,b)=>b[1]-a[1]).slice(0,8).map(([n,r])=>`${n}: ${(r/1024).toFixed(1)}`).join('\n'));
