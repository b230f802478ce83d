// Printouts of other tools as users keep them in notes, for the import tests of the vscode and
// e2e tiers: vLLM's result block, and a page of notes with a context line above each run (model,
// GPUs, engine, token lengths) in Chinese and English, as issue 11 describes.

/** vLLM's result block as `vllm bench serve` prints it, for one concurrency. */
export function vllmBlock(concurrency: number, ttft: number): string {
  return `Maximum request concurrency: ${concurrency}
============ Serving Benchmark Result ============
Successful requests:                     100       
Failed requests:                         0         
Maximum request concurrency:             ${concurrency}         
Benchmark duration (s):                  ${(200 / concurrency).toFixed(2)}     
Total input tokens:                      51200     
Total generated tokens:                  12800     
Request throughput (req/s):              ${(concurrency / 2).toFixed(2)}      
Output token throughput (tok/s):         ${(concurrency * 64).toFixed(2)}    
Total Token throughput (tok/s):          ${(concurrency * 320).toFixed(2)}   
---------------Time to First Token----------------
Mean TTFT (ms):                          ${ttft}     
Median TTFT (ms):                        ${ttft - 5}     
P99 TTFT (ms):                           ${ttft * 2}    
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          10.55     
Median TPOT (ms):                        10.41     
P99 TPOT (ms):                           12.90     
---------------Inter-token Latency----------------
Mean ITL (ms):                           10.52     
Median ITL (ms):                         9.98      
P99 ITL (ms):                            25.31     
==================================================`;
}

export const NOTES = `# 压测记录

- **Qwen2-7B-Instruct-AWQ**, **2** x **L20 48GB**, **SGLang**, prompt_tokens=512, generated_tokens=128

${vllmBlock(4, 60)}

${vllmBlock(16, 90)}

- **Qwen2-7B-Instruct-AWQ**, **2** x **L20 48GB**, **vLLM**, prompt_tokens=512, generated_tokens=128

${vllmBlock(4, 70)}

${vllmBlock(16, 120)}
`;
