/** The database's file name in the data dir (a leaf: the front door asks whether it exists without loading SQLite). */
export const DB_FILE = "svc.db";
