/**
 * Import this first in every view's main.ts (before any schema is built). zod probes
 * `new Function('')` when a schema is created, to compile faster parsers; under our CSP (no
 * 'unsafe-eval') that probe is a reported violation. Parsing without it is what the CSP allows.
 */
import * as z from 'zod';

z.config({ jitless: true });
