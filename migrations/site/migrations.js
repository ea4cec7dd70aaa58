import journal from './meta/_journal.json';
import m0000 from './0000_init.sql';
import m0003 from './0003_retention.sql';

  export default {
    journal,
    migrations: {
      m0000,
m0003
    }
  }
  