// The app the workers benchmark serves: the REST static route, exported as fw start expects (not listening).
import { createApp } from '@fw/app';

export default function build() {
  const app = createApp({ onLog: () => undefined, shutdown: { delay: 0 } });
  app.get('/hello', (ctx) => ctx.json({ hello: 'world' }));
  return app;
}
