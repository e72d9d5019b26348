// fw: the application object users get from @fw/app, default settings.
import { createApp } from '@fw/app';
import { announce } from './ready.mjs';
import { CORE_SCENARIOS, fwCoreRoutes } from './routes.mjs';

const app = fwCoreRoutes(createApp());
const { port } = await app.listen(0, '127.0.0.1');
announce(port, CORE_SCENARIOS);
