// The action's post step (action.yml): stop the server the main step started, and show the end of its log.
'use strict';
const fs = require('node:fs');

const pid = Number(process.env.STATE_pid);
if (pid > 0) {
  try {
    process.kill(pid, 'SIGTERM');
    console.log(`cuecard serve (process ${pid}) stopped`);
  } catch (error) {
    console.log(`cuecard serve (process ${pid}) had already ended: ${error.code}`);
  }
}
if (process.env.STATE_log && fs.existsSync(process.env.STATE_log)) {
  const lines = fs.readFileSync(process.env.STATE_log, 'utf8').trimEnd().split('\n');
  console.log(lines.slice(-5).join('\n'));
}
