// One process: the workers benchmark's app listening itself, without fw start.
import build from './app.mjs';

const app = build();
const info = await app.listen(Number(process.env.PORT), '127.0.0.1');
console.log(JSON.stringify({ ready: true, port: info.port }));
