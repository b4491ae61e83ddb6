import { describe, expect } from 'vitest';
import type { DeploymentInput, Repository } from '../repository.js';
import { contractTest } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#putDeployment`, `#getDeployment` and `#deployments`: versions per definition id, by digest. */
export function describeDeployments<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer);
  let clock = 1_700_000_000_000;
  const deployment = (definitionId: string, digest: string, xml = `<definitions id="${definitionId}"/>`) =>
    ({ definitionId, digest, xml, deployedAt: clock++ }) satisfies DeploymentInput;

  describe('Repository#putDeployment', () => {
    test("should assign version 1 to a definition id's first deployment", async (repository) => {
      const input = deployment('order-fulfilment', 'digest-1');

      expect(await repository.putDeployment(input)).toEqual({ ...input, version: 1 });
    });

    test('should assign the next version to each new digest of the same definition id', async (repository) => {
      const versions = [];
      for (const digest of ['digest-1', 'digest-2', 'digest-3']) {
        versions.push((await repository.putDeployment(deployment('order-fulfilment', digest))).version);
      }

      expect(versions).toEqual([1, 2, 3]);
    });

    test('should number versions separately for each definition id', async (repository) => {
      const a1 = await repository.putDeployment(deployment('order-fulfilment', 'digest-a1'));
      const b1 = await repository.putDeployment(deployment('billing', 'digest-b1'));
      const a2 = await repository.putDeployment(deployment('order-fulfilment', 'digest-a2'));
      const b2 = await repository.putDeployment(deployment('billing', 'digest-b2'));

      expect([a1.version, b1.version, a2.version, b2.version]).toEqual([1, 1, 2, 2]);
    });

    test('should return the existing deployment when the same digest is deployed again', async (repository) => {
      const first = await repository.putDeployment(deployment('order-fulfilment', 'digest-1'));
      await repository.putDeployment(deployment('order-fulfilment', 'digest-2'));

      const again = await repository.putDeployment(deployment('order-fulfilment', 'digest-1', '<redeployed/>'));

      expect(again).toEqual(first);
      expect((await repository.deployments()).map(({ digest, version }) => `${digest}@${version}`)).toEqual([
        'digest-1@1',
        'digest-2@2',
      ]);
    });

    test('should keep the XML verbatim, unicode and all', async (repository) => {
      const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<definitions name="Bestellung 📦 — 注文">\r\n\t<![CDATA[ a < b && "ü" ]]></definitions>\n${'x'.repeat(200_000)}`;
      const input = deployment('order-fulfilment', 'digest-1', xml);

      await repository.putDeployment(input);

      expect((await repository.getDeployment('digest-1'))?.xml).toBe(xml);
    });
  });

  describe('Repository#getDeployment', () => {
    test('should return a deployment by its digest', async (repository) => {
      await repository.putDeployment(deployment('order-fulfilment', 'digest-1'));
      const second = await repository.putDeployment(deployment('order-fulfilment', 'digest-2'));

      expect(await repository.getDeployment('digest-2')).toEqual(second);
    });

    test('should return undefined for a digest that was never deployed', async (repository) => {
      await repository.putDeployment(deployment('order-fulfilment', 'digest-1'));

      expect(await repository.getDeployment('digest-unknown')).toBeUndefined();
    });
  });

  describe('Repository#deployments', () => {
    test('should return an empty list when nothing was deployed', async (repository) => {
      expect(await repository.deployments()).toEqual([]);
      expect(await repository.deployments('order-fulfilment')).toEqual([]);
    });

    test('should list every deployment oldest first', async (repository) => {
      const deployed = [];
      for (const [definitionId, digest] of [
        ['order-fulfilment', 'digest-a1'],
        ['billing', 'digest-b1'],
        ['order-fulfilment', 'digest-a2'],
      ] as const) {
        deployed.push(await repository.putDeployment(deployment(definitionId, digest)));
      }

      expect(await repository.deployments()).toEqual(deployed);
    });

    test("should list one definition id's deployments oldest first", async (repository) => {
      const a1 = await repository.putDeployment(deployment('order-fulfilment', 'digest-a1'));
      await repository.putDeployment(deployment('billing', 'digest-b1'));
      const a2 = await repository.putDeployment(deployment('order-fulfilment', 'digest-a2'));

      expect(await repository.deployments('order-fulfilment')).toEqual([a1, a2]);
      expect(await repository.deployments('unknown')).toEqual([]);
    });
  });
}
