// Validation suite (issue 4), fw: POST /users echoes the parsed JSON body as it is; POST
// /users/validated validates it with a 10-field zod schema through createHandler() and echoes
// the validated body.
import { createApp } from '@fw/app';
import { createHandler } from '@fw/app/validate';
import { z } from 'zod';
import { announce } from './ready.mjs';

const User = z.object({
  name: z.string().min(1).max(100),
  email: z.email(),
  age: z.number().int().min(0).max(150),
  active: z.boolean(),
  role: z.enum(['user', 'admin']),
  score: z.number().min(0).max(100),
  tags: z.array(z.string().max(20)).max(10),
  country: z.string().length(2),
  zip: z.string().regex(/^\d{5}$/),
  createdAt: z.iso.datetime(),
});

const app = createApp();
app.post('/users', (ctx) => ctx.json(ctx.body));
app.post('/users/validated', ...createHandler({ body: User }, (ctx) => ctx.json(ctx.body)));

const { port } = await app.listen(0, '127.0.0.1');
announce(port, ['post', 'post-validated']);
