import journal from './meta/_journal.json';
import m0000 from './0000_init.sql';
import m0001 from './0001_edges.sql';
import m0002 from './0002_job_scope_chunks.sql';
import m0003 from './0003_retention.sql';
import m0004 from './0004_job_items_pending_only.sql';
import m0005 from './0005_alarms.sql';
import m0006 from './0006_memory_fuzzy.sql';
import m0007 from './0007_results_job_text_short.sql';
import m0008 from './0008_results_job_text_repeated.sql';
import m0009 from './0009_ledger_outbox.sql';
import m0010 from './0010_job_cancel_reason.sql';
import m0011 from './0011_change_sequence.sql';

  export default {
    journal,
    migrations: {
      m0000,
m0001,
m0002,
m0003,
m0004,
m0005,
m0006,
m0007,
m0008,
m0009,
m0010,
m0011
    }
  }
  