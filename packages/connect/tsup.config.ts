import { library } from '../../tooling/tsup/library.mjs';

export default library();
