// A script that leaves a terminal progress bar running (never calls finish): it must still exit on its own.
import { progressBar } from '../progress-bar.js';

const bar = progressBar(10, { stream: { write: () => true, isTTY: true, columns: 80 }, refreshMs: 50 });
bar.update(3);
bar.setDetail('rollouts 1/8');
bar.setDetail('rollouts 2/8');
