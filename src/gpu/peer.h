/* Direct writes between the ranks of one node (CUDA IPC): each rank's mailbox and control words
   mapped into the other ranks' address spaces, so that a refresh's positions go from the packing
   kernel straight into the receiver's memory and the skin decision is a vote, with no NCCL call
   and no host in the step. */
#ifndef MDL_GPU_PEER_H
#define MDL_GPU_PEER_H

#include "gpu.h"

#include <stddef.h>

typedef struct gpu_peers gpu_peers;

/* Collective: every rank maps every other's control words. Where some rank cannot (ranks on
   several nodes, no peer access between the GPUs), *out is NULL and the caller keeps its
   messages, unless `required` (MDL_EINPUT then, with the reason). */
int peers_create(gpu_peers **out, int rank, int nranks, int required);
void peers_destroy(gpu_peers *p);

/* A refresh stage as a rebuild leaves it: the ranks it sends to and receives from (way 0, 1),
   the items it receives each way and the bytes of one. */
typedef struct {
    int to[2], from[2];
    size_t nrecv[2], bytes;
} peer_stage;
enum { PEER_STAGES = 3 };

/* After a rebuild's counts (collective between neighbors): this rank's mailbox laid out for the
   stages' arrivals (grown where needed) and each sender told where its way of each stage goes;
   what this rank was told in return is mapped. */
int peers_publish(gpu_peers *p, const peer_stage *st, int nstages);

/* The next refresh (numbered alike on every rank); its stage k's kernel arguments: where each
   way's positions go, where this rank's arrive, the words that tell; a vote on the skin. */
void peers_next_refresh(gpu_peers *p);
void peers_stage(const gpu_peers *p, int k, void *dest[2], const void **arrivals, gpu_peer_out *out,
                 gpu_peer_in *in);
void peers_vote(gpu_peers *p, gpu_peer_vote *v);

/* A rebuild's messages (leavers, new ghosts), round by round (numbered alike on every rank): a
   message that fits the receiver's parcel area for its way (as the receiver last published it) is
   written there directly -- *dest and the words that tell, 1 -- else 0, and it goes as a message
   (the receiver, which knows as much, makes room by its next publish). */
void peers_next_round(gpu_peers *p);
int peers_parcel_out(const gpu_peers *p, int r, int w, size_t bytes, void **dest, gpu_peer_out *out);
int peers_parcel_in(gpu_peers *p, int w, size_t bytes, const void **src, gpu_peer_in *in);

#endif
