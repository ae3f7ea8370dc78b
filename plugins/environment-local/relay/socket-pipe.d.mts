import type { Socket } from 'node:net';

export declare function readPortHeader(socket: Socket, use: (port: number, rest: Buffer) => void): void;
export declare function splice(a: Socket, b: Socket, rest?: Buffer): void;
