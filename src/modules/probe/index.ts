// The probe: one SELECT 1 round trip, the floor `GET /__bench/select1` measures (bench/README.md).
export { createProbeService } from './probe.service.js';
