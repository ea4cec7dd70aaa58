export const jobName = "job";
