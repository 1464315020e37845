export { createInventoryImportService, type InventoryImportService, type ImportReport } from './inventory.service.js';
export { KINDS, type Kind } from './inventory.formats.js';
